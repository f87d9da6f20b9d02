#!/usr/bin/env python3
"""Drive a guest's virtio-mem device from what the guest asks.

Usage: vmem-qmp.py --qmp SOCKET --ask FILE --out FILE --parent PID
                   [--device ID]

devtools/qemu-run.sh --vmem starts this beside QEMU.  It connects to
QEMU's QMP socket (retrying until QEMU has created it) and follows the
file ASK, which the guest writes in the directory it shares with the
host (qemu-run.sh --share).  For each line

    UC-VMEM-REQUEST size=N     it sets the device's requested-size to N MiB
                               (qom-set on /machine/peripheral/ID), and
    UC-VMEM-QUERY [tag=T]      it reads the device's plugged size ("size")
                               and requested-size (qom-get)

and appends to OUT (in the same directory: the guest reads the answers)

    UC-VMEM-HOST-SET requested_mib=N ok=1|0
    UC-VMEM-HOST size_mib=N requested_mib=N [tag=T]

or a UC-VMEM-HOST-ERROR line saying what went wrong.

It never holds up the run: it exits when QEMU closes the QMP connection
(QEMU exited), when PID (qemu-run.sh) is gone, or on SIGTERM; every QMP
exchange has a timeout.  Only the Python standard library (QMP is JSON
lines over a Unix socket).
"""
import argparse
import json
import os
import re
import select
import signal
import socket
import sys
import time

REQUEST = re.compile(r"UC-VMEM-REQUEST size=(\d+)")
QUERY = re.compile(r"UC-VMEM-QUERY(?: tag=([\w.-]+))?")
MIB = 1 << 20


class QmpError(Exception):
    pass


class Qmp:
    """A QMP connection: one command at a time, events skipped."""

    def __init__(self, path, timeout=5.0):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(timeout)
        self.sock.connect(path)
        self.buf = b""
        self.closed = False
        self.next_id = 0
        greeting = self.read_msg()
        if "QMP" not in greeting:
            raise QmpError("no QMP greeting: %r" % greeting)
        self.command("qmp_capabilities")

    def read_msg(self):
        while b"\n" not in self.buf:
            try:
                data = self.sock.recv(65536)
            except socket.timeout:
                raise QmpError("timed out waiting for QEMU")
            if not data:
                self.closed = True
                raise QmpError("QEMU closed the QMP connection")
            self.buf += data
        line, self.buf = self.buf.split(b"\n", 1)
        return json.loads(line)

    def command(self, name, **args):
        self.next_id += 1
        msg = {"execute": name, "id": self.next_id}
        if args:
            msg["arguments"] = args
        self.sock.sendall(json.dumps(msg).encode() + b"\n")
        while True:
            reply = self.read_msg()
            if reply.get("id") != self.next_id:
                continue        # an event, or a stale reply
            if "error" in reply:
                raise QmpError("%s: %s" % (name, reply["error"].get("desc", reply["error"])))
            return reply.get("return")

    def poll_closed(self):
        """Read (and drop) what QEMU sent unasked; True once it hung up."""
        while not self.closed:
            r, _, _ = select.select([self.sock], [], [], 0)
            if not r:
                break
            try:
                data = self.sock.recv(65536)
            except OSError:
                data = b""
            if not data:
                self.closed = True
            else:
                # Events: drop the complete lines, keep a partial one.
                self.buf = (self.buf + data).rsplit(b"\n", 1)[-1]
        return self.closed


def alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--qmp", required=True)
    ap.add_argument("--ask", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--parent", type=int, required=True)
    ap.add_argument("--device", default="vm0")
    a = ap.parse_args()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    path = "/machine/peripheral/" + a.device

    def note(line):
        with open(a.out, "a") as f:
            f.write(line + "\n")

    # QEMU creates the socket as it starts: wait for it while the run lasts.
    qmp = None
    while qmp is None:
        if not alive(a.parent):
            return 0
        try:
            qmp = Qmp(a.qmp)
        except (OSError, QmpError, ValueError):
            time.sleep(0.2)

    def handle(line):
        m = REQUEST.search(line)
        if m:
            mib = int(m.group(1))
            try:
                qmp.command("qom-set", path=path, property="requested-size",
                            value=mib * MIB)
                note("UC-VMEM-HOST-SET requested_mib=%d ok=1" % mib)
            except (OSError, QmpError, ValueError) as e:
                note("UC-VMEM-HOST-SET requested_mib=%d ok=0" % mib)
                note("UC-VMEM-HOST-ERROR qom-set: %s" % e)
        m = QUERY.search(line)
        if m:
            tag = " tag=" + m.group(1) if m.group(1) else ""
            try:
                size = qmp.command("qom-get", path=path, property="size")
                req = qmp.command("qom-get", path=path, property="requested-size")
                note("UC-VMEM-HOST size_mib=%d requested_mib=%d%s"
                     % (size // MIB, req // MIB, tag))
            except (OSError, QmpError, ValueError, TypeError) as e:
                note("UC-VMEM-HOST-ERROR qom-get%s: %s" % (tag, e))

    pos = 0
    pending = b""
    while True:
        try:
            with open(a.ask, "rb") as f:
                f.seek(pos)
                data = f.read()
        except OSError:
            data = b""
        if data:
            pos += len(data)
            pending += data
            *lines, pending = pending.split(b"\n")
            for raw in lines:
                handle(raw.decode("utf-8", "replace").strip())
        if qmp.closed or qmp.poll_closed() or not alive(a.parent):
            return 0
        time.sleep(0.2)


if __name__ == "__main__":
    sys.exit(main())
