// franz-go (github.com/twmb/franz-go) against Strata: an idempotent acks=all producer and
// a consumer group member, run by tests/compat/franz_go_test.sh across a kill -9 of a
// partition leader.
//
//	franz_go produce BOOTSTRAP TOPIC COUNT ACKED_FILE
//	    COUNT records "v0".."v<COUNT-1>" (keys k0..k15), paced so that a leader can be
//	    killed while they are in flight; each acknowledged value is appended to ACKED_FILE
//	    as "value partition offset". Exits 1 if a record fails (franz-go retries until its
//	    delivery timeout, which outlasts a failover).
//	franz_go consume BOOTSTRAP TOPIC GROUP COUNT READ_FILE
//	    a member of GROUP reads TOPIC from the start until it has COUNT distinct values
//	    (or 120 s pass), commits, and writes each record read as "value partition offset".
//	franz_go txn BOOTSTRAP IN OUT
//	    transactions: 20 transactions of 10 records to IN, every other one aborted; a
//	    read_committed consumer must read exactly the 100 committed ones; then a
//	    GroupTransactSession copies IN to OUT (consume, produce, commit the group's offsets
//	    in the transaction) and a read_committed read of OUT holds the 100 once each.
package main

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

func main() {
	if len(os.Args) < 2 {
		fail("usage: franz_go produce|consume ...")
	}
	switch os.Args[1] {
	case "produce":
		count, _ := strconv.Atoi(os.Args[4])
		produce(os.Args[2], os.Args[3], count, os.Args[5])
	case "consume":
		count, _ := strconv.Atoi(os.Args[5])
		consume(os.Args[2], os.Args[3], os.Args[4], count, os.Args[6])
	case "txn":
		txn(os.Args[2], os.Args[3], os.Args[4])
	default:
		fail("unknown mode " + os.Args[1])
	}
}

func fail(why string) {
	fmt.Fprintln(os.Stderr, "franz_go:", why)
	os.Exit(1)
}

func produce(bootstrap, topic string, count int, ackedPath string) {
	// Idempotent with acks=all is franz-go's default; said here so that it stays so.
	client, err := kgo.NewClient(
		kgo.SeedBrokers(strings.Split(bootstrap, ",")...),
		kgo.DefaultProduceTopic(topic),
		kgo.RequiredAcks(kgo.AllISRAcks()),
		kgo.ProducerLinger(5*time.Millisecond),
	)
	if err != nil {
		fail(err.Error())
	}
	defer client.Close()
	out, err := os.Create(ackedPath)
	if err != nil {
		fail(err.Error())
	}
	acked := bufio.NewWriter(out)
	var mu sync.Mutex
	var failed int
	for i := 0; i < count; i++ {
		rec := &kgo.Record{Key: []byte(fmt.Sprintf("k%d", i%16)), Value: []byte(fmt.Sprintf("v%d", i))}
		client.Produce(context.Background(), rec, func(r *kgo.Record, err error) {
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				failed++
				fmt.Fprintf(os.Stderr, "record %s failed: %v\n", r.Value, err)
				return
			}
			fmt.Fprintf(acked, "%s %d %d\n", r.Value, r.Partition, r.Offset)
			acked.Flush()
		})
		if i%100 == 99 {
			time.Sleep(10 * time.Millisecond) // pacing: the run lasts a few seconds
		}
	}
	if err := client.Flush(context.Background()); err != nil {
		fail(err.Error())
	}
	mu.Lock()
	defer mu.Unlock()
	out.Close()
	if failed > 0 {
		fail(fmt.Sprintf("%d records failed", failed))
	}
	fmt.Printf("franz_go produce: %d records acknowledged\n", count)
}

func consume(bootstrap, topic, group string, count int, readPath string) {
	client, err := kgo.NewClient(
		kgo.SeedBrokers(strings.Split(bootstrap, ",")...),
		kgo.ConsumerGroup(group),
		kgo.ConsumeTopics(topic),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.DisableAutoCommit(),
	)
	if err != nil {
		fail(err.Error())
	}
	defer client.Close()
	out, err := os.Create(readPath)
	if err != nil {
		fail(err.Error())
	}
	defer out.Close()
	read := bufio.NewWriter(out)
	defer read.Flush()
	distinct := map[string]bool{}
	deadline := time.Now().Add(120 * time.Second)
	for len(distinct) < count && time.Now().Before(deadline) {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		fetches := client.PollFetches(ctx)
		cancel()
		fetches.EachError(func(t string, p int32, err error) {
			if err != context.DeadlineExceeded {
				fmt.Fprintf(os.Stderr, "fetch %s-%d: %v (retried)\n", t, p, err)
			}
		})
		fetches.EachRecord(func(r *kgo.Record) {
			distinct[string(r.Value)] = true
			fmt.Fprintf(read, "%s %d %d\n", r.Value, r.Partition, r.Offset)
		})
		if err := client.CommitUncommittedOffsets(context.Background()); err != nil {
			fmt.Fprintf(os.Stderr, "commit: %v (retried with the next)\n", err)
		}
	}
	fmt.Printf("franz_go consume: %d distinct values of %d\n", len(distinct), count)
	if len(distinct) < count {
		os.Exit(1)
	}
}

// readCommitted reads topic from the start, read_committed, until want values or 30 s.
func readCommitted(bootstrap, topic string, want int) []string {
	client, err := kgo.NewClient(
		kgo.SeedBrokers(strings.Split(bootstrap, ",")...),
		kgo.ConsumeTopics(topic),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.FetchIsolationLevel(kgo.ReadCommitted()),
	)
	if err != nil {
		fail(err.Error())
	}
	defer client.Close()
	var values []string
	deadline := time.Now().Add(30 * time.Second)
	for len(values) < want && time.Now().Before(deadline) {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		fetches := client.PollFetches(ctx)
		cancel()
		fetches.EachRecord(func(r *kgo.Record) { values = append(values, string(r.Value)) })
	}
	// One more poll: anything past want (an aborted record) would show.
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	client.PollFetches(ctx).EachRecord(func(r *kgo.Record) { values = append(values, string(r.Value)) })
	cancel()
	return values
}

func committedOnly(values []string, what string) {
	seen := map[string]int{}
	for _, v := range values {
		seen[v]++
		if strings.HasPrefix(v, "aborted") {
			fail(what + ": read_committed returned an aborted record " + v)
		}
	}
	if len(values) != 100 || len(seen) != 100 {
		fail(fmt.Sprintf("%s: %d records read, %d distinct, want 100", what, len(values), len(seen)))
	}
	fmt.Printf("franz_go txn: %s holds the 100 committed records once each\n", what)
}

func txn(bootstrap, in, out string) {
	ctx := context.Background()
	producer, err := kgo.NewClient(
		kgo.SeedBrokers(strings.Split(bootstrap, ",")...),
		kgo.DefaultProduceTopic(in),
		kgo.TransactionalID("franz-txn"),
	)
	if err != nil {
		fail(err.Error())
	}
	for t := 0; t < 20; t++ {
		if err := producer.BeginTransaction(); err != nil {
			fail("begin: " + err.Error())
		}
		for i := 0; i < 10; i++ {
			value := fmt.Sprintf("committed-%d-%d", t, i)
			if t%2 == 1 {
				value = fmt.Sprintf("aborted-%d-%d", t, i)
			}
			producer.Produce(ctx, &kgo.Record{Value: []byte(value)}, nil)
		}
		if err := producer.Flush(ctx); err != nil {
			fail("flush: " + err.Error())
		}
		end := kgo.TryCommit
		if t%2 == 1 {
			end = kgo.TryAbort
		}
		if err := producer.EndTransaction(ctx, end); err != nil {
			fail("end: " + err.Error())
		}
	}
	producer.Close()
	committedOnly(readCommitted(bootstrap, in, 100), in)

	session, err := kgo.NewGroupTransactSession(
		kgo.SeedBrokers(strings.Split(bootstrap, ",")...),
		kgo.DefaultProduceTopic(out),
		kgo.TransactionalID("franz-session"),
		kgo.ConsumerGroup("franz-session"),
		kgo.ConsumeTopics(in),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.FetchIsolationLevel(kgo.ReadCommitted()),
		kgo.RequireStableFetchOffsets(),
	)
	if err != nil {
		fail(err.Error())
	}
	copied := 0
	deadline := time.Now().Add(60 * time.Second)
	for copied < 100 && time.Now().Before(deadline) {
		pollCtx, cancel := context.WithTimeout(ctx, time.Second)
		fetches := session.PollFetches(pollCtx)
		cancel()
		records := fetches.Records()
		if len(records) == 0 {
			continue
		}
		if err := session.Begin(); err != nil {
			fail("session begin: " + err.Error())
		}
		for _, r := range records {
			session.Produce(ctx, &kgo.Record{Value: r.Value}, nil)
		}
		committed, err := session.End(ctx, kgo.TryCommit)
		if err != nil {
			fail("session end: " + err.Error())
		}
		if committed {
			copied += len(records)
		}
	}
	session.Close()
	committedOnly(readCommitted(bootstrap, out, 100), out)
}
