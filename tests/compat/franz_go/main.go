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
