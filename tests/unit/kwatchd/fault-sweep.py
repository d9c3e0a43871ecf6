#!/usr/bin/env python3
"""kwatchd's system-call fault sweep (issue 30, item 3).

kwatchd, built with ASan/UBSan, runs a fixed scenario on the host against
stand-ins for the kernel's files (a watch written to a /proc/kstackwatch
stand-in, a wprobe created in a tracefs stand-in with its trace_pipe a
FIFO, a fuzz spool whose debugfs input is a FIFO this script reads, pstore's
pmsg a plain file): two clients and a push target, a batch of five blobs and
a pack of three, a reload, a status, a last blob, SIGTERM.

A first run without an injected failure lists every system call the scenario
makes (strace -k: the call stack of each), and names each call site by the
first kwatchd frame of its stack.  Then, one run each, strace fails one call
site's occurrence with one errno that can happen there (strace
--inject=SYSCALL:error=E:when=N), and checks:

  - no crash: no ASan/UBSan report, no death by a signal;
  - no hang: every step answers in time, SIGTERM stops the daemon;
  - no descriptor leaked: the daemon's descriptors before SIGTERM are no
    more than in the run without a failure;
  - no blob lost or replayed twice: every blob is in exactly one of the
    spool's directories, and the input stand-in saw each at most once;
  - the outcome is the failure-free run's, or an event says what failed
    (an error event on the stream, or a status naming the error).

A start-up failure may end the daemon: then it must exit with an error
status and a message (never a crash), as systemd would then restart it.

Prints each run's verdict and, at the end, the failure points tried and
passed.  --short runs a fixed sample of the points (make check), the
default all of them (make fault-sweep).
"""

import argparse
import json
import os
import re
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time

# The system calls whose failure the sweep injects, with the errnos each can
# give on kwatchd's paths.  mmap/brk/munmap are ASan's as much as ours:
# failing them tests ASan, not kwatchd.
ERRNOS = {
    'openat': ['EMFILE', 'ENOMEM', 'EACCES', 'ENOSPC'],
    'read': ['EIO', 'EINTR', 'EAGAIN'],
    'pread64': ['EIO', 'EINTR'],
    'readv': ['EIO', 'EAGAIN'],
    'write': ['ENOSPC', 'EIO', 'EINTR', 'EAGAIN', 'EPIPE'],
    'pwrite64': ['ENOSPC', 'EIO'],
    'writev': ['ENOSPC', 'EIO', 'EAGAIN', 'ENOMEM'],
    'sendmsg': ['EAGAIN', 'ENOMEM'],
    'recvmsg': ['EAGAIN', 'EINTR', 'ENOMEM'],
    'accept4': ['EMFILE', 'ENOMEM', 'EAGAIN'],
    'socket': ['EMFILE', 'ENOMEM'],
    'connect': ['EAGAIN', 'EACCES', 'EINTR'],
    'renameat': ['ENOSPC', 'EIO', 'EACCES'],
    'renameat2': ['ENOSPC', 'EIO', 'EACCES'],
    'rename': ['ENOSPC', 'EIO', 'EACCES'],
    'linkat': ['ENOSPC', 'EIO', 'EACCES'],
    'unlinkat': ['EIO', 'EACCES'],
    'unlink': ['EIO', 'EACCES'],
    'mkdirat': ['ENOSPC', 'EACCES'],
    'mkdir': ['ENOSPC', 'EACCES'],
    'fsync': ['EIO', 'ENOSPC'],
    'fdatasync': ['EIO', 'ENOSPC'],
    'syncfs': ['EIO'],
    'sync_file_range': ['EIO'],
    'ftruncate': ['EIO', 'ENOSPC'],
    'getdents64': ['EIO', 'ENOMEM'],
    'newfstatat': ['ENOMEM', 'EACCES'],
    'fstat': ['ENOMEM', 'EIO'],
    'statx': ['ENOMEM', 'EACCES'],
    'inotify_init1': ['EMFILE', 'ENOMEM'],
    'inotify_add_watch': ['ENOSPC', 'ENOMEM'],
    'epoll_ctl': ['ENOMEM', 'ENOSPC'],
    'timerfd_create': ['EMFILE', 'ENOMEM'],
    'signalfd4': ['EMFILE', 'ENOMEM'],
    'eventfd2': ['EMFILE', 'ENOMEM'],
    'getrandom': ['EINTR', 'EAGAIN'],
    # timerfd_settime: no failure of kernel resources (EINVAL, EFAULT,
    # ECANCELED only), so not injected.
    'kill': ['EPERM'],
}

# Event types that say something failed.
ERROR_EVENTS = {
    'config_error', 'fuzz_stalled', 'fuzz_deferred', 'fuzz_rejected', 'push_failed',
    'state_error', 'lost', 'refused', 'bpf_unavailable', 'fuzz_interrupted',
}

# make check's short sweep: these calls only, each site's first errno, every
# fourth site.
SHORT = ['openat', 'renameat', 'renameat2', 'rename', 'fdatasync', 'fsync', 'accept4',
         'writev', 'sendmsg', 'getdents64', 'inotify_add_watch', 'pwrite64']

BLOBS = ['b%d' % i for i in range(5)]
PACK = ['p%d' % i for i in range(3)]
LATE = 'late'


def log(*a):
    print(*a, flush=True)


def read_events(sock, events, keep_unparsable=False):
    """Reads NDJSON events from @sock to its end into @events."""
    buf = b''
    while True:
        try:
            b = sock.recv(65536)
        except OSError:
            return
        if not b:
            return
        buf += b
        while b'\n' in buf:
            line, buf = buf.split(b'\n', 1)
            try:
                events.append(json.loads(line))
            except ValueError:
                if keep_unparsable:
                    events.append({'type': '?unparsable',
                                   'line': line[:200].decode('utf-8', 'replace')})


class Reader(threading.Thread):
    """Reads a file descriptor to its end, keeping what it read."""

    def __init__(self, f):
        super().__init__(daemon=True)
        self.f = f
        self.data = bytearray()

    def run(self):
        while True:
            try:
                b = os.read(self.f, 65536)
            except OSError:
                return
            if not b:
                return
            self.data += b


class Client(threading.Thread):
    """A socket client keeping the events it reads."""

    def __init__(self, path, deadline):
        super().__init__(daemon=True)
        self.events = []
        self.s = None
        while time.monotonic() < deadline:
            try:
                s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                s.connect(path)
                self.s = s
                break
            except OSError:
                s.close()
                time.sleep(0.1)

    def run(self):
        if self.s:
            read_events(self.s, self.events, keep_unparsable=True)

    def types(self):
        return [e.get('type') for e in self.events]

    def send(self, b):
        if self.s:
            try:
                self.s.sendall(b)
            except OSError:
                pass

    def close(self):
        if self.s:
            try:
                self.s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            self.s.close()


class PushTarget(threading.Thread):
    """The collector the daemon pushes to: accepts and reads everything."""

    def __init__(self, path):
        super().__init__(daemon=True)
        self.ls = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.ls.bind(path)
        self.ls.listen(4)
        self.events = []
        self.conns = 0

    def run(self):
        while True:
            try:
                c, _ = self.ls.accept()
            except OSError:
                return
            self.conns += 1
            threading.Thread(target=self.drain, args=(c,), daemon=True).start()

    def drain(self, c):
        read_events(c, self.events)

    def types(self):
        return [e.get('type') for e in self.events]

    def close(self):
        self.ls.close()


def blob_bytes(name):
    return ('KWBLOB<%s>;' % name).encode()


class Scenario:
    def __init__(self, kwatchd, kwatchctl, top, slow=1, base_fds=None):
        self.slow = slow
        self.base_fds = base_fds    # the run without a failure's count
        self.kwatchd = kwatchd
        self.kwatchctl = kwatchctl
        self.w = tempfile.mkdtemp(prefix='kwfault.', dir=top)

    def setup(self):
        w = self.w
        for d in ('conf/watch.d', 'conf/wprobe.d', 'conf/fuzz.d', 'state', 'run',
                  'kft/test_t', 'kft/_config', 'tracefs/instances/kwatchd/events/kwatchd/kwp',
                  'tracefs/instances/kwatchd/events/wprobe/wprobe_storm'):
            os.makedirs(os.path.join(w, d))
        with open(os.path.join(w, 'conf/kwatchd.conf'), 'w') as f:
            f.write('[daemon]\nsocket = %s/run/events.sock\npush = %s/push.sock\n'
                    'journal = none\nquiet_ms = 50\n'
                    '[kernel]\nkstackwatch = %s/kstackwatch\ntracefs = %s/tracefs\n'
                    'kfuzztest = %s/kft\nspool = %s/spool\n'
                    '[capture]\nbpf = no\nkmsg = no\npstore = no\npmsg = %s/pmsg\n'
                    'crash_dir = %s/crashes\n' % ((w,) * 8))
        self.put('conf/watch.d/w.conf', '[watch]\nfunction = do_sys_openat2\n')
        self.put('conf/wprobe.d/p.conf',
                 '[wprobe]\nname = kwp\naccess = w\nsymbol = jiffies\nlength = 8\n')
        self.put('conf/fuzz.d/t.conf', '[fuzz]\ntarget = test_t\n')
        t = os.path.join(w, 'tracefs')
        self.put('tracefs/README', '  w[:[<group>/][<event>]] <addr>\n')
        for f in ('dynamic_events', 'error_log', 'instances/kwatchd/events/kwatchd/kwp/enable',
                  'instances/kwatchd/events/kwatchd/kwp/trigger',
                  'instances/kwatchd/events/wprobe/wprobe_storm/enable'):
            self.put('tracefs/' + f, '')
        self.put('kstackwatch', '')
        self.put('pmsg', '')
        os.mkfifo(os.path.join(t, 'instances/kwatchd/trace_pipe'))
        # A writer held open: the daemon's reader sees no end of file.
        self.tp = os.open(os.path.join(t, 'instances/kwatchd/trace_pipe'), os.O_RDWR)
        os.mkfifo(os.path.join(w, 'kft/test_t/input'))
        # The input's reader: a blob written twice is seen twice.
        self.inp = os.open(os.path.join(w, 'kft/test_t/input'), os.O_RDWR)
        self.inp_reader = Reader(self.inp)
        self.inp_reader.start()
        self.push = PushTarget(os.path.join(w, 'push.sock'))
        self.push.start()

    def put(self, rel, text):
        with open(os.path.join(self.w, rel), 'w') as f:
            f.write(text)

    def start(self, strace):
        env = dict(os.environ, STATE_DIRECTORY=os.path.join(self.w, 'state'),
                   ASAN_OPTIONS='detect_leaks=0:abort_on_error=0:exitcode=66',
                   UBSAN_OPTIONS='print_stacktrace=1:halt_on_error=1:exitcode=67')
        self.errlog = open(os.path.join(self.w, 'kwatchd.log'), 'w')
        self.proc = subprocess.Popen(strace + [self.kwatchd] + (['-v'] if os.environ.get('KWF_V') else []) + ['-c', os.path.join(self.w, 'conf')],
                                     stdout=self.errlog, stderr=subprocess.STDOUT, env=env)

    def daemon_pid(self):
        """The daemon under strace: strace's child."""
        try:
            with open('/proc/%d/task/%d/children' % (self.proc.pid, self.proc.pid)) as f:
                kids = f.read().split()
            return int(kids[0]) if kids else None
        except OSError:
            return None

    def alive(self):
        return self.proc.poll() is None

    def wait_for(self, cond, timeout):
        end = time.monotonic() + timeout * self.slow
        while time.monotonic() < end:
            if cond():
                return True
            if not self.alive():
                return cond()
            time.sleep(0.05)
        return cond()

    def spool(self, *p):
        return os.path.join(self.w, 'spool/test_t', *p)

    def drop_blob(self, name):
        tmp = self.spool('tmp', name)
        with open(tmp, 'wb') as f:
            f.write(blob_bytes(name))
        os.rename(tmp, self.spool(name))

    def drop_pack(self, name, blobs):
        tmp = self.spool('tmp', name)
        with open(tmp, 'wb') as f:
            f.write(b'KWPACK01')
            for b in blobs:
                data = blob_bytes(b)
                f.write(struct.pack('<I', len(data)) + data)
        os.rename(tmp, self.spool(name))

    def where(self):
        """Each spool entry's places (ignoring results and errno files)."""
        places = {}
        for d in ('', 'inflight', 'done', 'rejected', 'interrupted'):
            try:
                names = os.listdir(self.spool(d))
            except OSError:
                continue
            for n in names:
                if n.startswith('.') or n.endswith('.errno') or n.endswith('.results'):
                    continue
                if d == '' and n in ('tmp', 'inflight', 'done', 'rejected', 'interrupted'):
                    continue
                places.setdefault(n.split('#')[0], []).append(d or 'queued')
        return places

    def settled(self, names):
        p = self.where()
        return all(n in p and all(x in ('done', 'rejected') for x in p[n]) for n in names)

    def spool_failed(self):
        """The fuzz file or its spool said it failed (the push target has
        every event from the start): its blobs need not be waited for."""
        return any(e.get('type') == 'fuzz_stalled' or
                   (e.get('type') == 'config_error' and e.get('file_kind') == 'fuzz')
                   for e in list(self.push.events))

    def settled_or_said(self, names):
        return self.settled(names) or self.spool_failed()

    def status(self):
        try:
            out = subprocess.run([self.kwatchctl, '-s', os.path.join(self.w, 'run/events.sock'),
                                  'status'], capture_output=True, timeout=5 * self.slow, text=True)
        except subprocess.TimeoutExpired:
            return None
        if out.returncode != 0:
            return {}
        try:
            return json.loads(out.stdout)
        except ValueError:
            return {}

    def fds(self, pid):
        """The daemon's descriptors, named as in any run (W for its directory)."""
        try:
            return sorted(re.sub(r'\[\d+\]', '[]', os.readlink('/proc/%d/fd/%s' % (pid, f)))
                          .replace(self.w, 'W') for f in os.listdir('/proc/%d/fd' % pid))
        except OSError:
            return None

    def run(self, strace):
        """The scenario; returns a dict of what was observed."""
        o = {'steps': [], 'hang': []}
        self.setup()
        self.start(strace)
        sock = os.path.join(self.w, 'run/events.sock')
        if not self.wait_for(lambda: os.path.exists(sock), 20):
            o['started'] = False
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                o['hang'].append('start: neither ready nor exited in 30 s')
                self.proc.kill()
                self.proc.wait()
            return self.finish(o)
        o['started'] = True
        deadline = time.monotonic() + 5 * self.slow
        a = Client(sock, deadline)
        b = Client(sock, deadline)
        a.start()
        b.start()
        o['clients'] = (a, b)
        # Taken on: a client's own status answered (events before that
        # are not its).
        for c in (a, b):
            c.send(b'status\n')
        if not self.wait_for(lambda: 'status' in a.types() and 'status' in b.types(), 10):
            o['steps'].append('clients: no status answered in 10 s')
        self.wait_for(lambda: os.path.isdir(self.spool('tmp')), 10)
        if os.path.isdir(self.spool('tmp')):
            for n in BLOBS:
                self.drop_blob(n)
            if not self.wait_for(lambda: self.settled_or_said(BLOBS), 15):
                o['steps'].append('batch: not settled in 15 s')
            self.drop_pack('pk.kwpack', PACK)
            if not self.wait_for(lambda: self.settled_or_said(['pk.kwpack']), 15):
                o['steps'].append('pack: not settled in 15 s')
        else:
            o['steps'].append('no spool')
        n0 = len(a.events)
        self.put('conf/wprobe.d/p.conf',
                 '[wprobe]\nname = kwp\naccess = w\nsymbol = jiffies\nlength = 4\n')
        if not self.wait_for(lambda: 'config_applied' in a.types()[n0:], 10):
            o['steps'].append('reload: no config_applied in 10 s (a client saw %s)' %
                              (a.types()[-4:] if a.s else 'no connection'))
        st = self.status()
        if st is None:
            o['hang'].append('status: no answer in 5 s')
            st = self.status()
        o['status'] = st
        if os.path.isdir(self.spool('tmp')):
            self.drop_blob(LATE)
            if not self.wait_for(lambda: self.settled_or_said([LATE]), 15):
                o['steps'].append('late blob: not settled in 15 s')
        pid = self.daemon_pid()
        # The fewest of several looks: a descriptor of work in progress is
        # no leak.  A spool that stalled on the failure holds its pack
        # until its retry, a second later: looked at for up to 2.4 s, and
        # no longer once there are no more than without a failure.
        looks = []
        for _ in range(9):
            f = self.fds(pid) if pid else None
            if f is not None:
                looks.append(f)
            if looks and self.base_fds is not None and min(map(len, looks)) <= self.base_fds:
                break
            time.sleep(0.3)
        o['fds'] = min(looks, key=len, default=None)
        time.sleep(0.2)
        self.proc.send_signal(signal.SIGTERM) if not pid else os.kill(pid, signal.SIGTERM)
        try:
            self.proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            o['hang'].append('SIGTERM: still running after 15 s')
            if pid:
                os.kill(pid, signal.SIGKILL)
            self.proc.kill()
            self.proc.wait()
        time.sleep(0.1)
        a.close()
        b.close()
        return self.finish(o)

    def finish(self, o):
        self.errlog.close()
        with open(os.path.join(self.w, 'kwatchd.log'), errors='replace') as f:
            o['log'] = f.read()
        o['rc'] = self.proc.returncode
        o['where'] = self.where()
        o['push'] = self.push
        o['inputs'] = re.findall(rb'KWBLOB<([^>]*)>;', bytes(self.inp_reader.data))
        self.push.close()
        os.close(self.tp)
        return o

    def cleanup(self):
        shutil.rmtree(self.w, ignore_errors=True)


def strace_opts(log, trace, inject=None, stacks=True):
    """strace's options: with an injection, only failed calls are printed
    (-Z), so only they pay for their stack (-k costs tens of ms a call)."""
    s = ['strace', '-f', '-qq', '-y', '-o', log, '-e', 'trace=' + trace]
    if stacks:
        s.append('-k')
    if inject:
        s += ['-Z', '-e', 'inject=' + inject]
    if inject and os.environ.get('KWF_TRACE'):	# debugging a verdict: these calls too, all of them
        s = [x for x in s if x != '-Z'] + ['-tt', '-e', 'trace=%s,%s' % (trace, os.environ['KWF_TRACE'])]
    return s


def errnos_at(sysc, line):
    """The errnos that can happen at this call, from how strace -y shows it:
    what the descriptor is (a file, a socket, a pipe), the flags."""
    errs = list(ERRNOS[sysc])
    m = re.search(r'\(\d+<([^>]*)>', line)
    what = m.group(1) if m else ''
    stream = what.startswith(('socket:', 'pipe:', 'anon_inode:')) or what.endswith(
        ('/input', '/trace_pipe', '/push.sock'))
    if sysc == 'epoll_ctl':
        # Only an ADD allocates; a DEL or MOD cannot fail that way.
        return errs if 'EPOLL_CTL_ADD' in line else []
    if sysc == 'openat' and 'O_CREAT' not in line:
        errs = [e for e in errs if e != 'ENOSPC']
    if sysc in ('write', 'pwrite64', 'writev'):
        errs = ['EAGAIN', 'EPIPE'] if stream else [e for e in errs if e not in ('EAGAIN', 'EINTR')]
    if sysc in ('read', 'pread64', 'readv'):
        errs = ['EAGAIN', 'EINTR'] if stream else ['EIO']
    return errs


SYSCALL_RE = re.compile(r'^(?:(\d+) +)?([a-z0-9_]+)\(')


def parse_sites(path, binary):
    """[[syscall, occurrence, site, injected, line]] from an strace -k log."""
    out = []
    count = {}
    cur = None
    base = os.path.basename(binary)
    with open(path, errors='replace') as f:
        for line in f:
            if line.startswith(' > '):
                if cur and cur[2] is None and ('/' + base + '(') in line:
                    m = re.search(r'\(([^)]*)\)', line)
                    cur[2] = m.group(1) if m and m.group(1) else line.split()[-1]
                continue
            m = SYSCALL_RE.match(line)
            if not m or '<unfinished' in line and False:
                continue
            if 'resumed>' in line:
                continue
            sc = m.group(2)
            key = (m.group(1), sc)
            count[key] = count.get(key, 0) + 1
            cur = [sc, count[key], None, '(INJECTED)' in line, line]
            out.append(cur)
    return out


def judge(o, base, inj):
    """The problems a run shows, [] for none."""
    bad = []
    logtext = o['log']
    if re.search(r'AddressSanitizer|runtime error:|LeakSanitizer', logtext):
        m = re.search(r'(ERROR: AddressSanitizer.*|.*runtime error:.*)', logtext)
        bad.append('sanitizer: ' + (m.group(1)[:200] if m else '?'))
    if o['rc'] is not None and o['rc'] < 0:
        bad.append('killed by signal %d' % -o['rc'])
    if o['rc'] in (66, 67):
        bad.append('sanitizer exit %d' % o['rc'])
    bad += ['hang: ' + h for h in o['hang']]
    if o['rc'] not in (0, None) and o['rc'] > 0 and 'kwatchd ready' in logtext:
        bad.append('exited %d while running' % o['rc'])
    # Blobs: each in exactly one place, run at most once.
    names = BLOBS + ['pk.kwpack'] + ([LATE] if o.get('started') else [])
    for n in (BLOBS + ['pk.kwpack'] if o.get('started') and 'no spool' not in o['steps'] else []):
        pl = o['where'].get(n, [])
        if len(pl) != 1:
            bad.append('blob %s in %s' % (n, pl or 'no place: lost'))
    seen = {}
    for b in o['inputs']:
        seen[b] = seen.get(b, 0) + 1
    twice = [b.decode() for b, c in seen.items() if c > 1]
    if twice:
        bad.append('replayed twice: %s' % ', '.join(twice))
    del names
    if not o.get('started') or (o['rc'] not in (0, None) and 'kwatchd ready' not in logtext):
        # A start-up failure: an error status and a message, never a crash.
        if o['rc'] == 0:
            bad.append('exited 0 without starting')
        elif not re.search(r'^<[0-4]>', logtext, re.M):
            bad.append('exited %s without an error message' % o['rc'])
        return bad
    # Descriptors: no more than without a failure.
    if o['fds'] is not None and base['fds'] is not None and len(o['fds']) > len(base['fds']):
        extra = list(o['fds'])
        for f in base['fds']:
            if f in extra:
                extra.remove(f)
        bad.append('descriptors: %d, %d without a failure (%s)' %
                   (len(o['fds']), len(base['fds']), ', '.join(extra)[:300]))
    # Different from the failure-free run: something must say so.
    diff = list(o['steps'])
    bw = {n: base['where'].get(n) for n in base['where']}
    for n, pl in o['where'].items():
        if bw.get(n) != pl:
            diff.append('%s in %s, not %s' % (n, pl, bw.get(n)))
    st, bst = o.get('status') or {}, base.get('status') or {}
    sf = {os.path.basename(f.get('file', '?')): f.get('state') for f in st.get('files', [])}
    bf = {os.path.basename(f.get('file', '?')): f.get('state') for f in bst.get('files', [])}
    for k, v in bf.items():
        if sf.get(k) != v:
            diff.append('%s %s, not %s' % (k, sf.get(k), v))
    if diff:
        said = set()
        for c in list(o.get('clients', ())) + [o['push']]:
            said |= set(t for t in c.types() if t in ERROR_EVENTS)
        if any(f.get('state') == 'error' for f in st.get('files', [])):
            said.add('status error')
        for sp in st.get('spools', []) or []:
            if sp.get('stalled'):
                said.add('status stalled')
        if not said:
            bad.append('unsaid: %s' % '; '.join(diff)[:300])
    return bad


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--kwatchd', required=True)
    ap.add_argument('--kwatchctl', required=True)
    ap.add_argument('--short', action='store_true', help='a fixed sample of the points')
    ap.add_argument('--only', help='SYSCALL[:ERRNO] to sweep')
    ap.add_argument('--report', help='write the verdicts here')
    ap.add_argument('--keep', action='store_true', help='keep the scratch directories')
    args = ap.parse_args()
    if not shutil.which('strace'):
        log('fault-sweep: strace is not installed (scripts/deps.sh installs it)')
        return 1
    top = tempfile.mkdtemp(prefix='kwfault-sweep.')
    trace = ','.join(sorted(SHORT if args.short else ERRNOS))

    # The failure-free runs: under strace -k, slowly, for the call sites;
    # under strace without stacks, for the outcome to compare with.
    sc = Scenario(args.kwatchd, args.kwatchctl, top, slow=8)
    slog = os.path.join(top, 'sites.strace')
    t0 = time.monotonic()
    o = sc.run(strace_opts(slog, trace))
    log('call sites run: %.1f s, rc %s' % (time.monotonic() - t0, o['rc']))
    calls = parse_sites(slog, args.kwatchd)
    if not args.keep:
        sc.cleanup()
    sc = Scenario(args.kwatchd, args.kwatchctl, top)
    t0 = time.monotonic()
    base = sc.run(strace_opts(os.path.join(sc.w, 'strace.log'), trace, stacks=False))
    bad = judge(base, base, None)
    log('base run: %.1f s, rc %s, blobs %s, fds %s' %
        (time.monotonic() - t0, base['rc'], sorted(base['where'].items()),
         len(base['fds'] or [])))
    if bad or not base.get('started') or base['steps']:
        log('not ok - the run without a failure: %s %s' % (bad, base['steps']))
        log(base['log'][-3000:])
        return 1
    # The loop times its own iterations and says so in the status reply.
    loop = (base.get('status') or {}).get('loop') or {}
    if not loop.get('iterations') or sorted(loop.get('over_ms', {}), key=int)[:1] != ['1']:
        log('not ok - the status has no loop figures: %s' % loop)
        return 1
    log('base run: the loop: %d iterations, the longest %.1f ms' %
        (loop['iterations'], loop['max_us'] / 1000))
    if not args.keep:
        sc.cleanup()
    # A site: the syscall and the first kwatchd frame; tried at its first
    # occurrence, with each errno.
    sites = {}
    for sysc, n, site, _, line in calls:
        if site is None or sysc not in ERRNOS or (sysc, site) in sites:
            continue
        sites[(sysc, site)] = (n, errnos_at(sysc, line))
    points = []
    for (sysc, site), (n, errs) in sorted(sites.items(), key=lambda x: (x[0][0], x[1][0])):
        for e in errs:
            points.append((sysc, site, n, e))
    if args.only:
        want = args.only.split(':')
        points = [p for p in points if p[0] == want[0] and (len(want) == 1 or p[3] == want[1])]
    if args.short:
        # One errno a site, every fourth site, in a fixed order.
        firsts, seen = [], set()
        for p in points:
            if p[:3] not in seen:
                seen.add(p[:3])
                firsts.append(p)
        points = firsts[::4]
    log('%d call sites in %d system calls; %d failure points to try' %
        (len(sites), len({s for s, _ in sites}), len(points)))
    tried = passed = drifted = 0
    verdicts = []
    hit_sites = set()
    for sysc, site, n, e in points:
        tried += 1
        sc = Scenario(args.kwatchd, args.kwatchctl, top, base_fds=len(base['fds'] or []))
        ilog = os.path.join(sc.w, 'strace.log')
        t0 = time.monotonic()
        o = sc.run(strace_opts(ilog, sysc, '%s:error=%s:when=%d' % (sysc, e, n)))
        got = [c for c in parse_sites(ilog, args.kwatchd) if c[3]]
        at = got[0][2] if got else None
        if at:
            hit_sites.add((sysc, at))
        bad = judge(o, base, (sysc, e, n))
        name = '%s:%s:%d at %s' % (sysc, e, n, at or 'nothing injected')
        if at and at != site:
            name += ' (meant %s)' % site
        # The Nth call is not always the same one (timing decides the
        # order of some): a failure that landed where it cannot happen
        # (EIO from a timerfd's read) proves nothing either way.
        if got and e not in errnos_at(sysc, got[0][4]):
            drifted += 1
            log('ok %d - %s # SKIP drifted to a call where %s cannot happen (%.1f s)' %
                (tried, name, e, time.monotonic() - t0))
            verdicts.append((name + ' (drifted)', []))
            if not args.keep:
                sc.cleanup()
            continue
        if bad:
            log('not ok %d - %s: %s (%.1f s)' % (tried, name, '; '.join(bad), time.monotonic() - t0))
            log('    in %s; log: %s' % (sc.w, ' | '.join(o['log'].splitlines()[-6:])[:600]))
        else:
            passed += 1
            log('ok %d - %s (%.1f s)' % (tried, name, time.monotonic() - t0))
        verdicts.append((name, bad))
        if not args.keep and not bad:
            sc.cleanup()
    log('fault sweep: %d failure points tried, %d passed, %d failed, %d drifted (skipped); '
        '%d distinct call sites failed' % (tried, passed, tried - passed - drifted, drifted,
                                           len(hit_sites)))
    if args.report:
        with open(args.report, 'w') as f:
            f.write('kwatchd fault sweep: %d tried, %d passed, %d drifted\n' % (tried, passed, drifted))
            for name, bad in verdicts:
                f.write('%s %s%s\n' % ('FAIL' if bad else 'ok  ', name,
                                       (': ' + '; '.join(bad)) if bad else ''))
    ok = passed + drifted == tried
    if not args.keep and ok:
        shutil.rmtree(top, ignore_errors=True)
    else:
        log('scratch kept in %s' % top)
    return 0 if ok else 1


if __name__ == '__main__':
    sys.exit(main())
