#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""`make loop-bench`: how long kwatchd's event loop stays away from its
clients under a heavy spool, on the host, natively.

kwatchd runs with a stand-in configuration (no kernel interface, no BPF,
kmsg or pstore; a fuzz target whose input is a plain file, pmsg a plain
file for batches, or none for a blob at a time), its spool holding BLOBS
queued blobs at its start; CLIENTS clients each ask `status` ten times a
second (the most a client may) and time each round trip.  A status waits
for the loop iteration under way to end, so the longest round trip bounds
the loop's longest iteration from below, and their histogram says how
often the loop is away that long.  With --old, an older kwatchd runs the
same and the figures are printed side by side.  Beside them, the loop's
own figures from its last status reply ("loop": iterations timed from
the first handler to the last), where the kwatchd keeps them.

Not part of make check: it takes a minute or two and its figures depend
on the disk."""
import argparse
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time

BUCKETS_MS = (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000)


def setup(w, blobs, batch):
    for d in ('conf/watch.d', 'conf/wprobe.d', 'conf/fuzz.d', 'state', 'run', 'kft/test_t',
              'spool/test_t', 'crashes'):
        os.makedirs(os.path.join(w, d))
    with open(os.path.join(w, 'conf/kwatchd.conf'), 'w') as f:
        f.write('[daemon]\nsocket = %s/run/events.sock\njournal = none\nquiet_ms = 50\n'
                '[kernel]\nkstackwatch = %s/none\ntracefs = %s/none\n'
                'kfuzztest = %s/kft\nspool = %s/spool\n'
                '[capture]\nbpf = no\nkmsg = no\npstore = no\npmsg = %s\n'
                'crash_dir = %s/crashes\n'
                % (w, w, w, w, w, os.path.join(w, 'pmsg') if batch else 'no', w))
    with open(os.path.join(w, 'conf/fuzz.d/t.conf'), 'w') as f:
        f.write('[fuzz]\ntarget = test_t\nkeep = 0\n')
    for name in ('pmsg', 'kft/test_t/input'):
        open(os.path.join(w, name), 'w').close()
    spool = os.path.join(w, 'spool/test_t')
    for i in range(blobs):
        with open(os.path.join(spool, 'b%06d' % i), 'wb') as f:
            f.write(b'blob %d\n' % i)
    # On the disk before the daemon starts: its syncs are its own.
    subprocess.run(['sync'], check=False)


class Client(threading.Thread):
    def __init__(self, path, stop):
        super().__init__(daemon=True)
        self.path, self.stop, self.rtt, self.last = path, stop, [], None

    def run(self):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.connect(self.path)
        f = s.makefile('rb')
        nxt = time.monotonic()
        while not self.stop.is_set():
            t0 = time.monotonic()
            s.sendall(b'status\n')
            for line in f:
                try:
                    o = json.loads(line)
                except ValueError:
                    continue
                if o.get('type') == 'status':
                    break
            else:
                return
            self.rtt.append(time.monotonic() - t0)
            self.last = o
            nxt += 0.1
            time.sleep(max(0.0, nxt - time.monotonic()))
        s.close()


def run(kwatchd, blobs, clients, seconds, batch, keep):
    w = tempfile.mkdtemp(prefix='kwloop.', dir=os.environ.get('KWATCH_BENCH_DIR'))
    proc = None
    try:
        setup(w, blobs, batch)
        sock = os.path.join(w, 'run/events.sock')
        env = dict(os.environ, STATE_DIRECTORY=os.path.join(w, 'state'))
        log = open(os.path.join(w, 'kwatchd.log'), 'w')
        t_start = time.monotonic()
        proc = subprocess.Popen([kwatchd, '-c', os.path.join(w, 'conf')], stdout=log,
                                stderr=subprocess.STDOUT, env=env)
        for _ in range(200):
            if os.path.exists(sock):
                break
            time.sleep(0.05)
        else:
            raise RuntimeError('kwatchd did not start: see %s/kwatchd.log' % w)
        stop = threading.Event()
        cs = [Client(sock, stop) for _ in range(clients)]
        for c in cs:
            c.start()
        done_dir = os.path.join(w, 'spool/test_t/done')
        t_end = time.monotonic() + seconds
        drained = None
        while time.monotonic() < t_end:
            time.sleep(0.2)
            try:
                n = len(os.listdir(done_dir))
            except OSError:
                n = 0
            if n >= blobs:
                drained = time.monotonic() - t_start
                break
        stop.set()
        for c in cs:
            c.join(5)
        done = len(os.listdir(done_dir)) if os.path.isdir(done_dir) else 0
        rtt = sorted(x for c in cs for x in c.rtt)
        loop = next((c.last.get('loop') for c in cs if c.last and c.last.get('loop')), None)
        return {'rtt': rtt, 'done': done, 'drained': drained,
                'elapsed': time.monotonic() - t_start, 'loop': loop}
    finally:
        if proc:
            proc.terminate()
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        if keep:
            print('kept %s' % w, file=sys.stderr)
        else:
            shutil.rmtree(w, ignore_errors=True)


def summary(r):
    rtt = r['rtt']
    if not rtt:
        return {'n': 0}
    hist = [0] * (len(BUCKETS_MS) + 1)
    for x in rtt:
        ms = x * 1000
        k = next((i for i, b in enumerate(BUCKETS_MS) if ms < b), len(BUCKETS_MS))
        hist[k] += 1
    return {'n': len(rtt), 'max': rtt[-1] * 1000, 'p50': rtt[len(rtt) // 2] * 1000,
            'p99': rtt[min(len(rtt) - 1, len(rtt) * 99 // 100)] * 1000, 'hist': hist,
            'done': r['done'], 'drained': r['drained'], 'elapsed': r['elapsed'],
            'loop': r.get('loop')}


def label(k):
    if k == 0:
        return '< %d ms' % BUCKETS_MS[0]
    if k == len(BUCKETS_MS):
        return '>= %d ms' % BUCKETS_MS[-1]
    return '%d-%d ms' % (BUCKETS_MS[k - 1], BUCKETS_MS[k])


def report(title, cols):
    names = list(cols)
    sums = [summary(cols[n]) for n in names]
    print('# %s' % title)
    print('%-26s' % '' + ''.join('%18s' % n for n in names))

    def row(what, fmt, key):
        print('%-26s' % what + ''.join('%18s' % (fmt % s[key] if s.get(key) is not None else '-')
                                       for s in sums))
    row('status round trips', '%d', 'n')
    row('longest (ms)', '%.1f', 'max')
    row('median (ms)', '%.2f', 'p50')
    row('99th percentile (ms)', '%.1f', 'p99')
    row('blobs done', '%d', 'done')
    row('queue drained after (s)', '%.1f', 'drained')
    for k in range(len(BUCKETS_MS) + 1):
        print('%-26s' % ('  ' + label(k)) +
              ''.join('%18s' % (s['hist'][k] if s.get('hist') else '-') for s in sums))
    # The loop's own account (status "loop"), where the kwatchd keeps one.
    loops = [s.get('loop') for s in sums]
    if any(loops):
        print('%-26s' % 'loop iterations (its own)' +
              ''.join('%18s' % (lp['iterations'] if lp else '-') for lp in loops))
        print('%-26s' % 'longest iteration (ms)' +
              ''.join('%18s' % ('%.1f' % (lp['max_us'] / 1000) if lp else '-') for lp in loops))
        keys = next(lp for lp in loops if lp)['over_ms']
        for k in sorted(keys, key=int):
            print('%-26s' % ('  over %s ms' % k) +
                  ''.join('%18s' % (lp['over_ms'].get(k, '-') if lp else '-') for lp in loops))
    print()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('--kwatchd', required=True, help='the kwatchd to measure')
    ap.add_argument('--old', help='an older kwatchd, measured the same, side by side')
    ap.add_argument('--blobs', type=int, default=5000)
    ap.add_argument('--clients', type=int, default=4)
    ap.add_argument('--seconds', type=float, default=60,
                    help='at most this long a run (a blob at a time seldom drains 5000)')
    ap.add_argument('--mode', choices=('batch', 'one', 'both'), default='both')
    ap.add_argument('--keep', action='store_true', help='keep the scratch directories')
    a = ap.parse_args()
    bins = [('before', a.old)] if a.old else []
    bins.append(('after' if a.old else 'kwatchd', a.kwatchd))
    modes = ('batch', 'one') if a.mode == 'both' else (a.mode,)
    print('# kwatchd loop bench: %d queued blobs, %d clients asking status 10/s, on %s' %
          (a.blobs, a.clients, os.uname().nodename))
    for m in modes:
        cols = {}
        for name, path in bins:
            cols[name] = run(path, a.blobs, a.clients, a.seconds, m == 'batch', a.keep)
        report('%s (%s), at most %.0f s' % ('batches of 256' if m == 'batch' else
                                            'a blob at a time', 'pmsg a file' if m == 'batch'
                                            else 'pmsg = no', a.seconds), cols)


if __name__ == '__main__':
    main()
