// Producing to a running Strata cluster with kafkajs 2 (pinned in package-lock.json), and
// reading back with kafkajs' consumer groups and with kcat.
//   node kafkajs_test.js <bootstrap.servers> <cluster.id>
// kafkajs 2 speaks only non-flexible versions and does not look at the broker's minimums:
// ApiVersions <= 2, Metadata <= 6, Produce <= 7, Fetch <= 11, ListOffsets <= 3,
// InitProducerId <= 1, CreateTopics <= 3. The topics exist (kafkajs_test.sh creates them
// with the strata CLI, RF 1): kjs-plain (6 partitions), kjs-idempotent (3), kjs-stamped (3),
// kjs-appended (2, LogAppendTime). What is checked:
//  * describeCluster (Metadata): the three brokers, a controller among them, the cluster id.
//  * admin.createTopics (CreateTopics v3): if ApiVersions advertises CreateTopics it must
//    create kjs-created (and report an existing topic as existing); otherwise the strata
//    CLI creates it and the test says so.
//  * producer.send with acks -1, 1 and 0, explicit partitions and keys (kafkajs' murmur2
//    partitioner), headers, explicit and client timestamps, a 400 KB value, GZIP; sendBatch
//    over two topics. Every acknowledged partition's baseOffset is where that send's first
//    message landed. An idempotent producer (InitProducerId, sequenced batches): its batches
//    carry its producer id and sequences 0, n, ... per partition.
//  * LogAppendTime: the Produce response's logAppendTime is the broker's time, and reading
//    back gives it instead of the 1970 timestamp sent.
//  * admin.fetchTopicOffsets (ListOffsets): low 0 and high = messages sent, per partition;
//    fetchTopicOffsetsByTimestamp: the first offset with a timestamp >= the target (the
//    high watermark when there is none).
//  * Read back twice, with a kafkajs consumer in a group of its own per topic (the group
//    APIs and Fetch v11) and kcat -C -J: per partition offsets 0..n-1, each message exactly
//    once, in the order sent, with its key, value, headers and timestamp. After the
//    consumer left, admin.fetchOffsets gives each partition's end as committed and
//    describeGroups the group Empty.
'use strict'

const { execFileSync } = require('child_process')
const { Kafka, logLevel, CompressionTypes, Partitioners } = require('kafkajs')

const [bootstrap, clusterId] = process.argv.slice(2)
const brokers = bootstrap.split(',')
const failures = []
function check(ok, what) {
  if (!ok) {
    failures.push(what)
    console.error(`FAILED: ${what}`)
  }
  return ok
}
const show = x => JSON.stringify(x)

// Every client call gets a deadline, so a hung request fails the test instead of hanging it.
async function within(what, promise, ms = 60000) {
  let timer
  const deadline = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms)
  })
  try {
    return await Promise.race([promise, deadline])
  } finally {
    clearTimeout(timer)
  }
}

const kafka = new Kafka({
  clientId: 'strata-compat-kafkajs',
  brokers,
  logLevel: logLevel.WARN,
  connectionTimeout: 5000,
  requestTimeout: 30000,
  retry: { retries: 3 },
})

// What was sent: seq -> message, plus each send's response.
const sent = new Map()
const sends = []
let nextSeq = 0
function message(topic, { partition, key, headers, timestamp, size } = {}) {
  const seq = nextSeq++
  let value = `seq=${seq};value ${seq} ünïcödé ✓`
  if (size) value += ' '.repeat(size - value.length)
  const m = { value, seq, topic, partition, key, headers, timestamp }
  sent.set(seq, m)
  return m
}
const toKafkajs = ({ value, partition, key, headers, timestamp }) => ({
  value,
  ...(partition !== undefined && { partition }),
  ...(key !== undefined && { key }),
  ...(headers !== undefined && { headers }),
  ...(timestamp !== undefined && { timestamp: String(timestamp) }),
})

// producer.send / sendBatch, remembering which messages each acknowledged partition got.
async function send(producer, what, topicMessages, options = {}) {
  const started = Date.now()
  const response = await within(what, producer.sendBatch({
    topicMessages: topicMessages.map(({ topic, messages }) => ({ topic, messages: messages.map(toKafkajs) })),
    ...options,
  }))
  const finished = Date.now()
  const id = sends.length
  for (const { messages } of topicMessages) {
    for (const m of messages) Object.assign(m, { send: id, window: [started, finished] })
  }
  sends.push({ what, response, acks: options.acks ?? -1 })
  for (const r of response) check(r.errorCode === 0, `${what}: ${r.topicName}[${r.partition}] error ${r.errorCode}`)
  return response
}

async function testDescribeCluster(admin) {
  const described = await within('describeCluster', admin.describeCluster())
  const ids = described.brokers.map(b => b.nodeId).sort()
  check(show(ids) === '[2,3,4]', `describeCluster brokers ${show(described.brokers)}`)
  check(ids.includes(described.controller), `describeCluster controller ${described.controller} is not a broker`)
  check(described.clusterId === clusterId, `describeCluster cluster id ${described.clusterId}, expected ${clusterId}`)
}

async function testCreateTopics(admin, cluster) {
  const broker = await within('findBroker', cluster.findBroker({ nodeId: 2 }))
  const advertised = broker.versions[19] // CreateTopics
  if (!advertised) {
    console.error('CreateTopics is not advertised yet: creating kjs-created with the strata CLI')
    let error
    try {
      await within('createTopics', admin.createTopics({ topics: [{ topic: 'kjs-created', numPartitions: 3, replicationFactor: 1 }] }))
    } catch (e) {
      error = e
    }
    check(error?.name === 'KafkaJSServerDoesNotSupportApiKey', `createTopics without CreateTopics advertised: ${error}`)
    execFileSync(`${process.env.STRATA_BIN_DIR}/strata`,
      ['topics', 'create', 'kjs-created', '--partitions', '3', '--replication-factor', '1'], { timeout: 60000 })
    return
  }
  console.error(`CreateTopics advertised (versions ${advertised.minVersion}..${advertised.maxVersion}): kafkajs creates kjs-created ` +
    '(then creates it again: kafkajs logs the TOPIC_ALREADY_EXISTS as "Topic creation errors")')
  try {
    const created = await within('createTopics', admin.createTopics({
      topics: [{ topic: 'kjs-created', numPartitions: 3, replicationFactor: 1 }],
      waitForLeaders: true,
      timeout: 10000,
    }))
    check(created === true, `createTopics(kjs-created) returned ${created}`)
    const again = await within('createTopics again', admin.createTopics({
      topics: [{ topic: 'kjs-created', numPartitions: 3, replicationFactor: 1 }],
    }))
    check(again === false, `createTopics of an existing topic returned ${again}, expected false (TOPIC_ALREADY_EXISTS)`)
  } catch (e) {
    check(false, `createTopics with CreateTopics advertised failed: ${e.name}: ${e.message}`)
  }
  const metadata = await within('fetchTopicMetadata', admin.fetchTopicMetadata({ topics: ['kjs-created'] }))
  const leaders = metadata.topics[0]?.partitions.map(p => p.leader).sort()
  check(leaders?.length === 3 && leaders.every(l => [2, 3, 4].includes(l)),
    `kjs-created metadata after createTopics: ${show(metadata.topics)}`)
}

async function testPlainProducer() {
  const producer = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner, allowAutoTopicCreation: false })
  await within('producer.connect', producer.connect())
  const headers = i => ({ seq: String(i), empty: '', trace: `t-${i}` })
  const explicit = acks => Array.from({ length: 30 }, (_, i) =>
    message('kjs-plain', { partition: i % 6, key: i % 2 ? `k-${acks}-${i}` : undefined, headers: i % 3 ? undefined : headers(i) }))
  await send(producer, 'acks=-1, explicit partitions', [{ topic: 'kjs-plain', messages: explicit(-1) }], { acks: -1 })
  const keyed = Array.from({ length: 60 }, (_, i) => message('kjs-plain', { key: `key-${i}`, timestamp: 1700000000000 + i }))
  await send(producer, 'acks=1, keyed', [{ topic: 'kjs-plain', messages: keyed }], { acks: 1 })
  await send(producer, 'acks=0, explicit partitions', [{ topic: 'kjs-plain', messages: explicit(0) }], { acks: 0 })
  // Over the same connections as the acks=0 requests, so the broker handles them after.
  const gzipped = [
    { topic: 'kjs-plain', messages: Array.from({ length: 24 }, (_, i) => message('kjs-plain', { partition: i % 6, headers: headers(i) })) },
    { topic: 'kjs-created', messages: Array.from({ length: 12 }, (_, i) => message('kjs-created', { key: `gz-${i}` })) },
  ]
  await send(producer, 'gzip sendBatch over two topics', gzipped, { acks: -1, compression: CompressionTypes.GZIP })
  await send(producer, 'a 400 KB value', [{ topic: 'kjs-plain', messages: [message('kjs-plain', { partition: 5, size: 400000 })] }])
  await send(producer, 'after the big one', [{ topic: 'kjs-plain', messages: explicit('last') }])
  await within('producer.disconnect', producer.disconnect())
}

async function testIdempotentProducer() {
  const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1, createPartitioner: Partitioners.DefaultPartitioner })
  await within('idempotent producer.connect', producer.connect())
  for (let round = 0; round < 5; round++) {
    const messages = Array.from({ length: 20 }, (_, i) => message('kjs-idempotent', { key: `idem-${round}-${i}` }))
    await send(producer, `idempotent round ${round}`, [{ topic: 'kjs-idempotent', messages }])
  }
  await within('idempotent producer.disconnect', producer.disconnect())
}

async function testLogAppendTime() {
  const producer = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner })
  await within('producer.connect', producer.connect())
  const messages = Array.from({ length: 10 }, (_, i) => message('kjs-appended', { partition: i % 2, timestamp: 1000 + i }))
  const response = await send(producer, 'to a LogAppendTime topic', [{ topic: 'kjs-appended', messages }])
  const [started, finished] = messages[0].window
  for (const r of response) {
    const t = Number(r.logAppendTime)
    check(t >= started && t <= finished,
      `kjs-appended[${r.partition}]: Produce response logAppendTime ${r.logAppendTime}, expected the broker's time in [${started}, ${finished}]`)
  }
  for (const m of messages) m.appendTime = response.find(r => r.partition === m.partition)?.logAppendTime
  await within('producer.disconnect', producer.disconnect())
}

async function testTimestamps(admin) {
  const producer = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner })
  await within('producer.connect', producer.connect())
  const base = Date.now() - 3600000
  const messages = Array.from({ length: 90 }, (_, i) => message('kjs-stamped', { partition: i % 3, timestamp: base + Math.floor(i / 2) * 10 }))
  await send(producer, 'explicit timestamps', [{ topic: 'kjs-stamped', messages }])
  await within('producer.disconnect', producer.disconnect())
  const stamps = [0, 1, 2].map(p => messages.filter(m => m.partition === p).map(m => m.timestamp))
  const last = messages[messages.length - 1].timestamp
  for (const target of [base - 1000, base, base + 1, base + 200, base + 205, base + 210, last, last + 1]) {
    const got = await within('fetchTopicOffsetsByTimestamp',
      admin.fetchTopicOffsetsByTimestamp('kjs-stamped', target))
    const want = [0, 1, 2].map(p => {
      const i = stamps[p].findIndex(ts => ts >= target)
      return { partition: p, offset: String(i < 0 ? stamps[p].length : i) }
    })
    const sorted = got.map(({ partition, offset }) => ({ partition, offset })).sort((a, b) => a.partition - b.partition)
    check(show(sorted) === show(want), `fetchTopicOffsetsByTimestamp(kjs-stamped, ${target}) = ${show(sorted)}, expected ${show(want)}`)
  }
}

// kafkajs' consumer in a group of its own per topic (FindCoordinator, JoinGroup,
// SyncGroup, Heartbeat, OffsetFetch, Fetch v11, OffsetCommit, LeaveGroup), from the
// beginning until `expected` messages arrived; it commits what it read before it
// disconnects. Returns [{partition, offset, key, value, headers, timestamp, batch}].
async function consumeAll(topic, expected) {
  const groupId = `kjs-group-${topic}`
  const consumer = kafka.consumer({ groupId, sessionTimeout: 10000, heartbeatInterval: 1000, maxWaitTimeInMs: 100 })
  const records = []
  let all
  const arrived = new Promise(resolve => { all = resolve })
  await within('consumer.connect', consumer.connect())
  try {
    await within('consumer.subscribe', consumer.subscribe({ topics: [topic], fromBeginning: true }))
    await within('consumer.run', consumer.run({
      eachMessage: async ({ partition, message }) => {
        records.push({
          partition,
          offset: Number(message.offset),
          key: message.key === null ? null : message.key.toString(),
          value: message.value === null ? null : message.value.toString(),
          headers: Object.fromEntries(Object.entries(message.headers || {}).map(([k, v]) => [k, v.toString()])),
          timestamp: message.timestamp,
          batch: message.batchContext,
        })
        if (records.length >= expected) all()
      },
    }))
    if (expected > 0) await within(`${expected} messages of ${topic} through the group`, arrived)
  } finally {
    await within('consumer.disconnect', consumer.disconnect())
  }
  return { groupId, records }
}

// The group's committed offsets after its consumer left: every partition's high
// watermark, and the group Empty with no members.
async function checkGroupCommitted(admin, groupId, topic, byPartition, count) {
  const fetched = await within('admin.fetchOffsets', admin.fetchOffsets({ groupId, topics: [topic] }))
  const got = fetched[0].partitions.map(({ partition, offset }) => ({ partition, offset })).sort((a, b) => a.partition - b.partition)
  const want = Array.from({ length: count }, (_, p) => ({ partition: p, offset: String((byPartition.get(p) || []).length) }))
    .map(w => (w.offset === '0' ? { partition: w.partition, offset: '-1' } : w))
  check(show(got) === show(want), `fetchOffsets(${groupId}) = ${show(got)}, expected ${show(want)}`)
  const { groups } = await within('admin.describeGroups', admin.describeGroups([groupId]))
  check(groups.length === 1 && groups[0].state === 'Empty' && groups[0].members.length === 0,
    `describeGroups(${groupId}) = ${show(groups.map(g => ({ state: g.state, members: g.members.length })))}, expected Empty with no members`)
}

// kcat -C -J, as the same shape (without the batch).
function kcatAll(topic) {
  const out = execFileSync('kcat', ['-C', '-b', bootstrap, '-t', topic, '-e', '-q', '-o', 'beginning', '-J'],
    { timeout: 60000, maxBuffer: 64 << 20, stdio: ['ignore', 'pipe', 'inherit'] })
  return out.toString().split('\n').filter(l => l).map(l => JSON.parse(l)).map(r => {
    const headers = {}
    for (let i = 0; i < (r.headers || []).length; i += 2) headers[r.headers[i]] = r.headers[i + 1]
    return { partition: r.partition, offset: r.offset, key: r.key, value: r.payload, headers, timestamp: String(r.ts) }
  })
}

function checkReadBack(topic, records, reader) {
  const messages = [...sent.values()].filter(m => m.topic === topic)
  const where = `${reader} ${topic}`
  const byPartition = new Map()
  for (const r of records) byPartition.set(r.partition, [...(byPartition.get(r.partition) || []), r])
  const seen = new Map()
  for (const [p, rs] of byPartition) {
    const offsets = rs.map(r => r.offset)
    check(show(offsets) === show(offsets.map((_, i) => i)), `${where}[${p}]: offsets ${show(offsets.slice(0, 10))}..., not 0..${rs.length - 1}`)
    let previous = -1
    for (const r of rs) {
      const seq = Number(/^seq=(\d+);/.exec(r.value || '')?.[1] ?? -1)
      const m = sent.get(seq)
      if (!check(m && m.topic === topic, `${where}[${p}]@${r.offset}: not a message sent to ${topic}: ${show(r).slice(0, 200)}`)) continue
      check(!seen.has(seq), `${where}: message ${seq} read twice, at ${p}@${seen.get(seq)} and ${p}@${r.offset}`)
      seen.set(seq, r)
      check(seq > previous, `${where}[${p}]@${r.offset}: message ${seq} after ${previous}, out of the order sent`)
      previous = seq
      if (m.partition !== undefined) check(p === m.partition, `${where}: message ${seq} in partition ${p}, sent to ${m.partition}`)
      check(r.value === m.value, `${where}[${p}]@${r.offset}: value ${r.value.slice(0, 80)} (${r.value.length}), sent ${m.value.slice(0, 80)} (${m.value.length})`)
      check(r.key === (m.key ?? null), `${where}[${p}]@${r.offset}: key ${r.key}, sent ${m.key}`)
      check(show(r.headers) === show(m.headers || {}), `${where}[${p}]@${r.offset}: headers ${show(r.headers)}, sent ${show(m.headers || {})}`)
      const ts = Number(r.timestamp)
      if (m.appendTime !== undefined) {
        check(r.timestamp === m.appendTime, `${where}[${p}]@${r.offset}: timestamp ${r.timestamp}, the Produce response's logAppendTime ${m.appendTime}`)
      } else if (m.timestamp !== undefined) {
        check(ts === m.timestamp, `${where}[${p}]@${r.offset}: timestamp ${r.timestamp}, sent ${m.timestamp}`)
      } else {
        check(ts >= m.window[0] && ts <= m.window[1], `${where}[${p}]@${r.offset}: timestamp ${r.timestamp} outside its send's window ${show(m.window)}`)
      }
    }
  }
  const missing = messages.filter(m => !seen.has(m.seq)).map(m => m.seq)
  check(missing.length === 0, `${where}: ${missing.length} messages sent were not read back: ${show(missing.slice(0, 10))}`)
  // Each acknowledged partition's baseOffset is where that send's first message landed.
  for (const [id, { what, response, acks }] of sends.entries()) {
    if (acks === 0) continue
    for (const r of response.filter(r => r.topicName === topic)) {
      const landed = [...seen.entries()].filter(([seq]) => sent.get(seq).send === id).map(([, rec]) => rec)
        .filter(rec => rec.partition === r.partition).map(rec => rec.offset)
      check(landed.length > 0 && Number(r.baseOffset) === Math.min(...landed),
        `${where}: '${what}' acknowledged ${r.partition} at baseOffset ${r.baseOffset}, its messages are at ${show(landed.slice(0, 5))}`)
    }
  }
  return byPartition
}

async function main() {
  const admin = kafka.admin()
  await within('admin.connect', admin.connect())
  // kafkajs' internal cluster (the advertised versions).
  const createCluster = Object.getOwnPropertySymbols(kafka).find(s => s.description === 'private:Kafka:createCluster')
  const cluster = kafka[createCluster]({ metadataMaxAge: 300000 })
  await within('cluster.connect', cluster.connect())
  await within('cluster.refreshMetadata', cluster.refreshMetadata())
  try {
    await testDescribeCluster(admin)
    await testCreateTopics(admin, cluster)
    await testPlainProducer()
    await testIdempotentProducer()
    await testLogAppendTime()
    await testTimestamps(admin)
    const partitions = { 'kjs-plain': 6, 'kjs-created': 3, 'kjs-idempotent': 3, 'kjs-appended': 2, 'kjs-stamped': 3 }
    for (const [topic, count] of Object.entries(partitions)) {
      const expected = [...sent.values()].filter(m => m.topic === topic).length
      const { groupId, records: fetched } = await consumeAll(topic, expected)
      const byPartition = checkReadBack(topic, fetched, 'kafkajs consumer group')
      await checkGroupCommitted(admin, groupId, topic, byPartition, count)
      checkReadBack(topic, kcatAll(topic), 'kcat')
      const offsets = await within('fetchTopicOffsets', admin.fetchTopicOffsets(topic))
      const got = offsets.map(({ partition, low, high }) => ({ partition, low, high })).sort((a, b) => a.partition - b.partition)
      const want = Array.from({ length: count }, (_, p) => ({ partition: p, low: '0', high: String((byPartition.get(p) || []).length) }))
      check(show(got) === show(want), `fetchTopicOffsets(${topic}) = ${show(got)}, expected ${show(want)}`)
      if (topic === 'kjs-idempotent') {
        // The producer's id on every batch, sequences counting records per partition.
        for (const [p, rs] of byPartition) {
          const batches = new Map(rs.map(r => [r.batch.firstOffset, r.batch]))
          for (const b of batches.values()) {
            check(b.producerId !== '-1' && b.firstSequence === Number(b.firstOffset),
              `kjs-idempotent[${p}]: batch at ${b.firstOffset} has producer id ${b.producerId}, first sequence ${b.firstSequence}`)
          }
        }
      }
      console.error(`${topic}: ${fetched.length} messages read back`)
    }
  } catch (e) {
    check(false, `${e.name}: ${e.message}`)
  } finally {
    await within('cluster.disconnect', cluster.disconnect()).catch(() => {})
    await within('admin.disconnect', admin.disconnect()).catch(() => {})
  }
  if (failures.length > 0) {
    console.error(`${failures.length} checks failed`)
    process.exit(1)
  }
  console.log('kafkajs test passed')
}

main().catch(e => {
  console.error(e)
  process.exit(1)
})
