#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""bench agent: runs shell commands sent by the conducting VM.

The benchmark runs in two VMs.  VM b conducts; VM a runs this agent on
TCP port 7701 (control traffic is never impaired by the test wire).  Each
connection carries one command line; the agent runs it with bash after
sourcing the bench libraries, sends back its stdout+stderr and a last line
"rc=N", and closes.  Commands that must outlive the call start their own
background jobs (see runners.sh).

    agent.py PRELUDE_FILE [PORT]
"""
import socketserver
import subprocess
import sys

PRELUDE = sys.argv[1]
PORT = int(sys.argv[2]) if len(sys.argv) > 2 else 7701


class Handler(socketserver.StreamRequestHandler):
    def handle(self):
        line = self.rfile.readline().decode(errors='replace').strip()
        if not line:
            return
        try:
            res = subprocess.run(['bash', '-c', 'source "$0"; ' + line, PRELUDE],
                                 stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                 stdin=subprocess.DEVNULL, timeout=900, check=False)
            out, rc = res.stdout, res.returncode
        except subprocess.TimeoutExpired as e:
            out, rc = (e.stdout or b'') + b'agent: timeout\n', 124
        if out and not out.endswith(b'\n'):
            out += b'\n'
        self.wfile.write(out + b'rc=%d\n' % rc)


class Server(socketserver.ThreadingTCPServer):
    allow_reuse_address = True
    daemon_threads = True


if __name__ == '__main__':
    with Server(('0.0.0.0', PORT), Handler) as srv:
        srv.serve_forever()
