"""Transactions with confluent-kafka (librdkafka) against Strata (transactions_test.sh).

Checks, each against what the broker stored: a committed and an aborted transaction
(read_committed returns the committed records only, read_uncommitted both); a
consume-transform-produce round with send_offsets_to_transaction (the group's offsets
commit with the output); fencing by a second producer with the same transactional.id
(_FENCED, fatal); transaction.timeout.ms above the broker's maximum
(INVALID_TRANSACTION_TIMEOUT); and a send that fails inside a transaction (an unknown
partition): commit_transaction raises an abortable error and abort_transaction recovers.
Usage: transactions_test.py BOOTSTRAP (topics txn-py and txn-py-out, 3 partitions each).
"""
import sys
import time

from confluent_kafka import Consumer, KafkaException, Producer, TopicPartition

BS = sys.argv[1]
failures = []


def check(ok, what):
    print(("ok: " if ok else "FAILED: ") + what)
    if not ok:
        failures.append(what)


def read(topic, isolation, partitions=3):
    c = Consumer({'bootstrap.servers': BS, 'group.id': 'reader-' + isolation, 'isolation.level': isolation,
                  'enable.auto.commit': False})
    tps = [TopicPartition(topic, p, 0) for p in range(partitions)]
    ends = {}
    for tp in tps:
        ends[tp.partition] = c.get_watermark_offsets(tp, timeout=10)[1]
    c.assign(tps)
    got = []
    deadline = time.time() + 30
    positions = {p: 0 for p in range(partitions)}
    while time.time() < deadline and any(positions[p] < ends[p] for p in positions):
        m = c.poll(0.5)
        if m is None:
            for tp in c.position(tps):
                positions[tp.partition] = max(positions[tp.partition], tp.offset)
            continue
        if m.error():
            continue
        got.append(m.value().decode())
        positions[m.partition()] = m.offset() + 1
    c.close()
    return got


def producer(txn_id, **extra):
    conf = {'bootstrap.servers': BS, 'transactional.id': txn_id}
    conf.update(extra)
    return Producer(conf)


# Commit and abort.
p = producer('py-1')
p.init_transactions(30)
p.begin_transaction()
for i in range(9):
    p.produce('txn-py', value='committed-%d' % i, partition=i % 3)
p.commit_transaction(30)
p.begin_transaction()
for i in range(6):
    p.produce('txn-py', value='aborted-%d' % i, partition=i % 3)
p.flush()
p.abort_transaction(30)
committed = read('txn-py', 'read_committed')
check(sorted(committed) == sorted('committed-%d' % i for i in range(9)),
      'read_committed returns the 9 committed records only: %s' % sorted(committed))
check(len(read('txn-py', 'read_uncommitted')) == 15, 'read_uncommitted returns all 15 records')

# Consume-transform-produce with send_offsets_to_transaction.
c = Consumer({'bootstrap.servers': BS, 'group.id': 'py-ctp', 'isolation.level': 'read_committed',
              'auto.offset.reset': 'earliest', 'enable.auto.commit': False})
c.assign([TopicPartition('txn-py', i) for i in range(3)])
copied = 0
deadline = time.time() + 30
while copied < 9 and time.time() < deadline:
    msgs = [m for m in c.consume(100, 1.0) if not m.error()]
    if not msgs:
        continue
    p.begin_transaction()
    for m in msgs:
        p.produce('txn-py-out', value=m.value(), partition=m.partition())
    p.send_offsets_to_transaction(c.position(c.assignment()), c.consumer_group_metadata(), 30)
    p.commit_transaction(30)
    copied += len(msgs)
c.close()
check(copied == 9, 'copied %d records in transactions' % copied)
check(sorted(read('txn-py-out', 'read_committed')) == sorted(committed), 'the output holds the input once')
c = Consumer({'bootstrap.servers': BS, 'group.id': 'py-ctp', 'enable.auto.commit': False})
offsets = c.committed([TopicPartition('txn-py', i) for i in range(3)], 10)
ends = [c.get_watermark_offsets(TopicPartition('txn-py', i), timeout=10)[1] for i in range(3)]
c.close()
check([tp.offset for tp in offsets] == ends, 'the committed offsets %s are the input ends %s'
      % ([tp.offset for tp in offsets], ends))

# Fencing.
zombie = producer('py-fence')
zombie.init_transactions(30)
zombie.begin_transaction()
zombie.produce('txn-py', value='zombie', partition=0)
zombie.flush()
successor = producer('py-fence')
successor.init_transactions(30)
try:
    zombie.commit_transaction(10)
    check(False, 'the fenced producer committed')
except KafkaException as e:
    check(e.args[0].fatal() and e.args[0].name() == '_FENCED', 'the fenced producer: %s' % e.args[0].name())
check('zombie' not in read('txn-py', 'read_committed'), "the fenced producer's record is not committed")

# An invalid timeout.
try:
    producer('py-timeout', **{'transaction.timeout.ms': 3600000}).init_transactions(10)
    check(False, 'a timeout above transaction.max.timeout.ms was accepted')
except KafkaException as e:
    check(e.args[0].name() == 'INVALID_TRANSACTION_TIMEOUT', 'a timeout above the maximum: %s' % e.args[0].name())

# A send that fails inside a transaction: the commit fails abortably, the abort recovers.
q = producer('py-abortable', **{'message.timeout.ms': 3000})
q.init_transactions(30)
q.begin_transaction()
q.produce('txn-py', value='doomed', partition=7)  # txn-py has 3 partitions
try:
    q.commit_transaction(20)
    check(False, 'a transaction with a failed send committed')
except KafkaException as e:
    check(e.args[0].txn_requires_abort(), 'the failed send makes the commit abortable: %s' % e.args[0])
q.abort_transaction(30)
q.begin_transaction()
q.produce('txn-py', value='after-abort', partition=1)
q.commit_transaction(30)
check('after-abort' in read('txn-py', 'read_committed'), 'the producer commits again after the abort')

if failures:
    print('%d checks failed' % len(failures))
    sys.exit(1)
print('transactions_test.py passed')
