#!/usr/bin/python3
"""vm-monitor.py SOCK CMD... - run QEMU human-monitor commands on a lab VM.

SOCK is the VM's monitor socket (vm-start.sh: -monitor unix:SCRATCH/NAME.mon).
Each CMD's reply is printed under a "## CMD" header with the monitor's line
editing escapes removed.  "@virtio-net" in a CMD stands for the QOM path of
the VM's virtio-net backend (from "info virtio").  Used by run.sh to record
the emulator's side of a stalled virtio-net queue; it never fails the run.
"""
import re
import socket
import sys
import time

ESC = re.compile(r'\x1b\[[0-9;]*[A-Za-z]|\r')


def reply(sock, cmd, wait=1.0):
    if cmd:
        sock.sendall((cmd + '\n').encode())
    data, end = b'', time.monotonic() + wait
    while time.monotonic() < end:
        sock.settimeout(max(0.05, end - time.monotonic()))
        try:
            chunk = sock.recv(65536)
        except socket.timeout:
            break
        if not chunk:
            break
        data += chunk
        if data.rstrip().endswith(b'(qemu)'):
            break
    text = ESC.sub('', data.decode(errors='replace'))
    # drop the echoed command line and the trailing prompt
    lines = [ln for ln in text.split('\n') if not ln.startswith('(qemu)')
             and not ln.endswith(cmd or '\0')]
    return '\n'.join(lines).strip()


def main():
    if len(sys.argv) < 3:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    try:
        sock = socket.socket(socket.AF_UNIX)
        sock.connect(sys.argv[1])
    except OSError as e:
        print('monitor %s: %s' % (sys.argv[1], e))
        return 0
    reply(sock, '')			# the greeting
    path = None
    for cmd in sys.argv[2:]:
        if '@virtio-net' in cmd:
            if path is None:
                m = re.search(r'^(\S+) \[virtio-net\]', reply(sock, 'info virtio'), re.M)
                path = m.group(1) if m else ''
            if not path:
                print('## %s\nno virtio-net device' % cmd)
                continue
            cmd = cmd.replace('@virtio-net', path)
        print('## %s\n%s' % (cmd, reply(sock, cmd)))
    return 0


if __name__ == '__main__':
    sys.exit(main())
