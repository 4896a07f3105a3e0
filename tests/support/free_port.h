#pragma once
// A TCP port on 127.0.0.1 that nothing listens on, for a process a test starts and may
// restart on the same port. It is taken below the kernel's ephemeral range
// (ip_local_port_range) so that no outgoing connection, of this test or of another one
// running at the same time, can occupy it while the process is down; it is chosen at
// random and reserved in /tmp/strata-ports (a file per port, shared with
// tools/strata-cluster's clusters), so that tests started together never pick the same
// one, and never twice in one test process.

namespace strata::testing {

int FreePort();

}  // namespace strata::testing
