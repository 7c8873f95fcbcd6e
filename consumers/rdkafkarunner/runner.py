"""sharebench's librdkafka client runner (client: librdkafka).

python runner.py CONFIG.properties runs a fleet's members on confluent-kafka
(librdkafka): a ShareConsumer per share-group member, a Consumer per
consumer-group member, in one process. It is the Java runner
(consumers/javarunner) in Python: the same configuration file
(consumers/java_fleet.go, writeRunnerConfig), the same commands on stdin
(ping SEQ, join ID, leave ID, crash ID, slow FACTOR DURATION_NS, stop; the
end of stdin is stop) and the same event frames on stdout (SBRF v2,
consumers/java_frames.go), so the Go side measures it with the same code.

stdout carries only frames: file descriptor 1 is moved aside at start and
stderr put in its place, so neither Python nor librdkafka can write into the
stream. Exit status 0 after a stop, 2 on a bad configuration, 3 when a
member failed beyond what it counts (the reason on stderr).
"""

import collections
import math
import os
import queue
import random
import re
import struct
import sys
import threading
import time

PROTOCOL = 2
MAGIC = b"SBRF"
(HELLO, PONG, POLL, DELIVERY, COMPLETION, RELEASE, REJECT, RETRY, FOREIGN, POLL_ERROR, ACK_ERROR, RENEWAL,
 ASSIGNED, REVOKED, LEFT, EXITED, BYE, REQUESTS, WRITE) = range(1, 20)
FLAG_LOCK_EXPIRED, FLAG_ARCHIVED = 1, 2
# A WRITE frame's flag when the write failed (n: its time in us, aux: the
# time its statement held the connection in ns).
FLAG_WRITE_FAILED = 1

# magic, version, kind, flags, member u16, n i32, producer u32, run u64, seq
# u64, intended i64, at i64, aux i64; then the CRC-32C of those 57 bytes.
_FRAME = struct.Struct(">4sBBBHiIQQqqq")
_CRC = struct.Struct(">I")
FRAME_SIZE = _FRAME.size + _CRC.size

# The 40-byte record stamp (results/stamp.go): magic "SBN1", producer, run,
# seq, intended and actual send time, big-endian.
_STAMP = struct.Struct(">IIQQqq")
STAMP_MAGIC = 0x53424E31
MASK64 = (1 << 64) - 1

# Poll timeout: the Python clients have no wakeup(), so a leave or stop waits
# for the poll in progress; an idle member counts one empty poll per timeout.
POLL_TIMEOUT_S = 0.25

ABANDONED, ACCEPTED, RELEASED, REJECTED = 0, 1, 2, 3


def _crc32c_table():
    t = []
    for i in range(256):
        c = i
        for _ in range(8):
            c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
        t.append(c)
    return t


_TABLE = _crc32c_table()


def crc32c_py(data):
    """CRC-32C (Castagnoli), reflected, init and final xor 0xFFFFFFFF."""
    c = 0xFFFFFFFF
    for b in data:
        c = _TABLE[(c ^ b) & 0xFF] ^ (c >> 8)
    return c ^ 0xFFFFFFFF


try:  # the C implementation the harness installs beside confluent-kafka
    from crc32c import crc32c
except ImportError:  # pragma: no cover - unit tests without the package
    crc32c = crc32c_py


def encode_frame(kind, flags, member, n, st, at, aux):
    if st is None:
        producer = run = seq = intended = 0
    else:
        producer, run, seq, intended = st.producer, st.run, st.seq, st.intended
    b = _FRAME.pack(MAGIC, PROTOCOL, kind, flags, member, n, producer, run, seq, intended, at, aux)
    return b + _CRC.pack(crc32c(b))


class Stamp:
    __slots__ = ("producer", "run", "seq", "intended", "sent")

    def __init__(self, run, producer, seq, intended, sent):
        self.run, self.producer, self.seq, self.intended, self.sent = run, producer, seq, intended, sent

    @staticmethod
    def decode(value):
        """The stamp at the start of value, or None when it carries none."""
        if value is None or len(value) < _STAMP.size:
            return None
        magic, producer, run, seq, intended, sent = _STAMP.unpack_from(value)
        if magic != STAMP_MAGIC:
            return None
        return Stamp(run, producer, seq, intended, sent)


def is_poison(run, producer, seq, rate):
    """consumers.isPoison: splitmix64 finaliser over run ^ producer<<40 ^ seq,
    top 53 bits as a uniform double below rate."""
    if rate <= 0:
        return False
    x = (run ^ (producer << 40) ^ seq) & MASK64
    x = (x + 0x9E3779B97F4A7C15) & MASK64
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & MASK64
    x ^= x >> 31
    return (x >> 11) / float(1 << 53) < rate


class Clock:
    """Unix ns read once at start plus CLOCK_MONOTONIC since (time.monotonic_ns
    reads the clock Go's monotonic readings use): the offset to the harness's
    clock, measured once by ping/pong, stays put."""

    def __init__(self):
        self.epoch_unix = time.time_ns()
        self.epoch_mono = time.monotonic_ns()

    def now(self):
        return self.epoch_unix + (time.monotonic_ns() - self.epoch_mono)


Z99 = 2.3263478740408408


class Processing:
    """consumers.Processing's models with the same parameters (ns)."""

    def __init__(self, model, t, lo, hi, mean, median, p99):
        if model not in ("none", "constant", "uniform", "exponential", "lognormal"):
            raise ValueError("processing.model: unknown " + model)
        self.model, self.time, self.min, self.max, self.mean, self.median = model, t, lo, hi, mean, median
        self.sigma = math.log(p99 / median) / Z99 if model == "lognormal" else 0.0

    def sample(self, r):
        m = self.model
        if m == "constant":
            return self.time
        if m == "uniform":
            return self.min + int(r.random() * (self.max - self.min))
        if m == "exponential":
            return int(-math.log(1.0 - r.random()) * self.mean)
        if m == "lognormal":
            return int(self.median * math.exp(self.sigma * r.gauss(0.0, 1.0)))
        return 0


PROPERTY_ESCAPES = {"n": "\n", "r": "\r", "t": "\t"}


def unescape(s):
    """A java.util.Properties key or value as the harness escapes it
    (consumers/java_fleet.go propertyValue, propertyKey): backslash n, r, t
    are line end, carriage return and tab; a backslash before any other
    character is that character."""
    out, i = [], 0
    while i < len(s):
        c = s[i]
        if c == "\\" and i + 1 < len(s):
            i += 1
            c = PROPERTY_ESCAPES.get(s[i], s[i])
        out.append(c)
        i += 1
    return "".join(out)


def split_property(line):
    """key, value at the first '=' not escaped by a backslash (None if none)."""
    i = 0
    while i < len(line):
        if line[i] == "\\":
            i += 2
            continue
        if line[i] == "=":
            return line[:i], line[i + 1:]
        i += 1
    return None


def load_properties(path):
    """The runner's configuration file: key=value lines, # comments; the
    value keeps trailing blanks (a password may end in one), and leading
    blanks unless escaped."""
    props = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\r\n").lstrip()
            if not line or line.startswith("#"):
                continue
            kv = split_property(line)
            if kv is None:
                raise ValueError("line %r: want key=value" % line)
            props[unescape(kv[0].strip())] = unescape(kv[1].lstrip())
    return props


# CLIENT_PREFIX marks the client's connection settings in the configuration
# (security.protocol, ssl.*, sasl.*, socket.connection.setup.timeout.ms:
# connection.Settings.LibrdkafkaProperties); every one is given to every
# ShareConsumer and Consumer as it is.
CLIENT_PREFIX = "client."


# What librdkafka (confluent-kafka 2.16) does not have; the harness refuses
# these before it starts the runner (consumers/librdkafka_client.go), and the
# runner refuses them again so a hand-written config cannot slip through.
CLASSIC_ASSIGNORS = {"cooperative-sticky": "cooperative-sticky", "range": "range", "roundrobin": "roundrobin"}


class Config:
    def __init__(self, p):
        def req(k):
            if k not in p:
                raise ValueError("missing " + k)
            return p[k]

        def ns(k):
            return int(p.get(k, "0"))

        self.bootstrap, self.topic, self.group, self.type = req("bootstrap"), req("topic"), req("group"), req("type")
        self.acquire_mode = p.get("acquire_mode", "batch_optimized")
        self.ack_mode = p.get("ack_mode", "implicit")
        self.workers = int(req("workers"))
        self.max_poll_records = int(req("max_poll_records"))
        self.delivery_limit = int(p.get("delivery_limit", "5"))
        self.transient_rate = float(p.get("transient_rate", "0"))
        self.poison_rate = float(p.get("poison_rate", "0"))
        self.renew = p.get("renew", "false") == "true"
        self.close_timeout_ns = int(p.get("close_timeout_ns", "10000000000"))
        self.session_timeout_ns = ns("session_timeout_ns")
        self.lock_ns = ns("lock_ns")
        self.fetch_max_wait_ns = ns("fetch_max_wait_ns")
        self.fetch_min_bytes = int(p.get("fetch_min_bytes", "0"))
        self.fetch_max_bytes = int(p.get("fetch_max_bytes", "0"))
        self.fetch_max_partition_bytes = int(p.get("fetch_max_partition_bytes", "0"))
        self.run = int(req("run"))
        self.client = {k[len(CLIENT_PREFIX):]: v for k, v in p.items() if k.startswith(CLIENT_PREFIX)}
        self.group_protocol = p.get("group_protocol", "classic")
        self.remote_assignor = p.get("remote_assignor", "uniform")
        self.assignor = p.get("assignor", "cooperative-sticky")
        self.static_membership = p.get("static_membership", "false") == "true"
        self.auto_commit = p.get("auto_commit", "false") == "true"
        self.auto_commit_interval_ns = int(p.get("auto_commit_interval_ns", "5000000000"))
        self.destination = Destination.of(p)
        self.processing = Processing(p.get("processing.model", "none"), ns("processing.time"), ns("processing.min"),
                                     ns("processing.max"), ns("processing.mean"), ns("processing.median"),
                                     ns("processing.p99"))
        if self.type not in ("share", "consumer"):
            raise ValueError("type: expected share or consumer, got " + self.type)
        if self.ack_mode not in ("implicit", "explicit"):
            raise ValueError("ack_mode: expected implicit or explicit, got " + self.ack_mode)
        if self.group_protocol not in ("classic", "consumer"):
            raise ValueError("group_protocol: expected classic or consumer, got " + self.group_protocol)
        if self.renew:
            raise ValueError("renew: librdkafka has no RENEW acknowledgement (AcknowledgeType is ACCEPT, RELEASE, REJECT)")
        if self.share() and self.acquire_mode != "batch_optimized":
            raise ValueError("acquire_mode %s: librdkafka has no share.acquire.mode (it cannot ask for record limits)"
                             % self.acquire_mode)
        if not self.share() and self.group_protocol == "classic" and self.assignor not in CLASSIC_ASSIGNORS:
            raise ValueError("assignor %s: librdkafka's classic assignors are %s" %
                             (self.assignor, ", ".join(sorted(CLASSIC_ASSIGNORS))))

    def share(self):
        return self.type == "share"

    def explicit(self):
        return self.ack_mode == "explicit"


def fetch_properties(cfg):
    """The fetch settings both clients are given (0: librdkafka's default):
    fetch_max_wait as fetch.wait.max.ms, and the byte limits."""
    p = {}
    if cfg.fetch_max_wait_ns > 0:
        p["fetch.wait.max.ms"] = max(1, cfg.fetch_max_wait_ns // 1_000_000)
    if cfg.fetch_min_bytes > 0:
        p["fetch.min.bytes"] = cfg.fetch_min_bytes
    if cfg.fetch_max_bytes > 0:
        p["fetch.max.bytes"] = cfg.fetch_max_bytes
    if cfg.fetch_max_partition_bytes > 0:
        p["max.partition.fetch.bytes"] = cfg.fetch_max_partition_bytes
    return p


def client_properties(cfg):
    """The connection settings every client is given (the client.* lines)."""
    return dict(cfg.client)


def share_properties(cfg, mid):
    """The ShareConsumer settings of member mid."""
    p = client_properties(cfg)
    p.update({
        "bootstrap.servers": cfg.bootstrap,
        "group.id": cfg.group,
        "client.id": "sharebench-librdkafka-%d" % mid,
        "share.acknowledgement.mode": cfg.ack_mode,
        "max.poll.records": str(cfg.max_poll_records),
    })
    p.update(fetch_properties(cfg))
    return p


def consumer_properties(cfg, mid):
    """The Consumer settings of member mid: the group protocol (classic with
    partition.assignment.strategy, or KIP-848's consumer with
    group.remote.assignor, where session.timeout.ms and heartbeat.interval.ms
    are the broker's), static membership, and the commit mode. Offsets are
    stored by the runner after processing (enable.auto.offset.store false),
    so auto-commit commits processed records only."""
    p = client_properties(cfg)
    p.update({
        "bootstrap.servers": cfg.bootstrap,
        "group.id": cfg.group,
        "client.id": "sharebench-librdkafka-%d" % mid,
        "group.protocol": cfg.group_protocol,
        "enable.auto.commit": cfg.auto_commit,
        "enable.auto.offset.store": False,
        "auto.offset.reset": "earliest",
    })
    kip848 = cfg.group_protocol == "consumer"
    if kip848:
        p["group.remote.assignor"] = cfg.remote_assignor
    else:
        p["partition.assignment.strategy"] = CLASSIC_ASSIGNORS[cfg.assignor]
    if cfg.static_membership:
        p["group.instance.id"] = "sharebench-%d" % mid
    if cfg.auto_commit:
        p["auto.commit.interval.ms"] = max(1, cfg.auto_commit_interval_ns // 1_000_000)
    if cfg.session_timeout_ns > 0:
        ms = cfg.session_timeout_ns // 1_000_000
        if not kip848:
            p["session.timeout.ms"] = ms
            p["heartbeat.interval.ms"] = ms // 3
        p["max.poll.interval.ms"] = ms  # as the Java runner: a crashed member leaves after it
    p.update(fetch_properties(cfg))
    return p


class Frames:
    """Buffers frames and writes them to fd every few ms; control frames
    flush at once."""

    def __init__(self, fd, flush_every_s):
        self.fd = fd
        self.lock = threading.Lock()
        self.buf = bytearray()
        self.failed = False
        self.closed = False
        if flush_every_s > 0:
            self.flush_every_s = flush_every_s
            threading.Thread(target=self._flusher, name="frames-flusher", daemon=True).start()

    def _flusher(self):
        while not self.closed:
            time.sleep(self.flush_every_s)
            self.flush()

    def write(self, kind, flags, member, n, st, at, aux):
        b = encode_frame(kind, flags, member, n, st, at, aux)
        with self.lock:
            self.buf += b
            if len(self.buf) >= 64 << 10:
                self._flush_locked()

    def control(self, kind, member, n, at):
        b = encode_frame(kind, 0, member, n, None, at, 0)
        with self.lock:
            self.buf += b
            self._flush_locked()

    def flush(self):
        with self.lock:
            self._flush_locked()

    def _flush_locked(self):
        if not self.buf or self.failed:
            self.buf.clear()
            return
        view = memoryview(bytes(self.buf))
        self.buf.clear()
        try:
            while view:
                n = os.write(self.fd, view)
                view = view[n:]
        except OSError:
            self.failed = True  # the harness is gone; stdin's end stops the runner

    def close(self):
        self.closed = True
        self.flush()


# One record's write gives up after this (consumers.destinationWriteTimeout).
WRITE_TIMEOUT_S = 30


class Destination:
    """The write stage (consumers/java_destination.go): a member writes each
    accepted record into the run's table with psycopg after processing and
    before its acknowledgement or commit, running the harness's statement
    (destination.Config.Statement) on a connection of its own pool of
    destination.pool connections, or, under destination.connections, of the
    runner's one shared pool of that many (taking at most pool of them).
    Each write is reported in a WRITE frame: failed or not, its time (the
    wait for a connection included) and the time its statement held the
    connection."""

    def __init__(self, p):
        self.host = "%s:%s" % (p["destination.host"], p.get("destination.port", "5432"))
        self.params = {"host": p["destination.host"], "port": p.get("destination.port", "5432"),
                       "dbname": p.get("destination.database", ""), "user": p.get("destination.user", ""),
                       "password": p.get("destination.password", ""), "sslmode": p.get("destination.sslmode", "disable"),
                       "connect_timeout": "10", "options": "-c statement_timeout=%d" % (WRITE_TIMEOUT_S * 1000)}
        self.statement = re.sub(r"\$[1-5]", "%s", p["destination.statement"])
        self.topic = p["destination.topic"]
        self.pool = int(p.get("destination.pool", "1"))
        self.connections = int(p.get("destination.connections", "0"))
        self.shared = None
        self.lock = threading.Lock()

    @staticmethod
    def of(p):
        """The run's destination in the configuration; None when it has none."""
        return Destination(p) if "destination.host" in p else None

    def connect(self):
        import psycopg
        return psycopg.connect(autocommit=True, **self.params)

    def writer(self):
        """A member's writer (its own pool, or its share of the shared one), its connections opened."""
        with self.lock:
            if self.connections > 0:
                if self.shared is None:
                    self.shared = Lines(self, self.connections)
                return Writer(self, self.shared, self.pool, False)
        return Writer(self, Lines(self, self.pool), self.pool, True)


class Job:
    """One record's write, handed to a line: its statement's arguments, and
    what the line made of it."""
    __slots__ = ("args", "done", "held", "err")

    def __init__(self, args):
        self.args = args
        self.done = threading.Event()
        self.held = 0
        self.err = None


class Lines:
    """A pool of n connections, each run by a thread of its own (a line).
    A line takes the next waiting write of a writer that has fewer than its
    pool of statements running, runs the statement and hands the result
    back, so a connection goes from one statement straight to the next. (A
    connection passed from worker to worker waits, between two statements,
    for the next worker to be woken and to take the interpreter lock: on a
    busy host the connections stood idle a fifth of the time.) The
    connections are opened at once, so the first writes do not pay for it,
    and again at the next write when one broke."""

    def __init__(self, dest, n):
        self.dest = dest
        self.cond = threading.Condition()
        self.runnable = collections.deque()  # writers with a waiting write and a statement to spare
        self.closed = False
        for i in range(n):
            c = None
            try:
                c = dest.connect()
            except Exception as e:  # noqa: BLE001 - counted as failed writes from then on
                print("librdkafka runner: destination: connect to %s: %s" % (dest.host, e), file=sys.stderr)
            threading.Thread(target=self._line, args=(c,), name="destination-line-%d" % i, daemon=True).start()

    def submit(self, w, job):
        """Queues a writer's write; False once the lines are closed."""
        with self.cond:
            if self.closed:
                return False
            w.pending.append(job)
            if not w.queued and w.running < w.pool:
                w.queued = True
                self.runnable.append(w)
                self.cond.notify()
        return True

    def cancel(self, w, job):
        """Takes back a write no line has started; False when one has."""
        with self.cond:
            try:
                w.pending.remove(job)
            except ValueError:
                return False
            return True

    def close(self):
        """The lines end once no write waits."""
        with self.cond:
            self.closed = True
            self.cond.notify_all()

    def _take_locked(self):
        while self.runnable:
            w = self.runnable.popleft()
            w.queued = False
            if w.pending and w.running < w.pool:
                w.running += 1
                job = w.pending.popleft()
                self._requeue_locked(w)
                if self.runnable:
                    self.cond.notify()  # a line may be waiting while writes are
                return w, job
        return None, None

    def _requeue_locked(self, w):
        if w.pending and not w.queued and w.running < w.pool:
            w.queued = True
            self.runnable.append(w)

    def _line(self, c):
        w = None
        while True:
            with self.cond:
                if w is not None:
                    w.running -= 1
                    self._requeue_locked(w)
                while True:
                    w, job = self._take_locked()
                    if job is not None:
                        break
                    if self.closed:
                        if c is not None:
                            try:
                                c.close()
                            except Exception:  # noqa: BLE001 - closing anyway
                                pass
                        return
                    self.cond.wait()
            c = self._run(c, job)

    def _run(self, c, job):
        """Runs one statement; returns the connection, or None when it broke."""
        try:
            if c is None:
                c = self.dest.connect()
            t0 = time.monotonic_ns()
            c.execute(self.dest.statement, job.args, prepare=True)
            job.held = time.monotonic_ns() - t0
        except Exception as e:  # noqa: BLE001 - a failed write is counted, the record handed back
            job.err = e
            if c is not None and (c.closed or c.broken):
                try:
                    c.close()
                except Exception:  # noqa: BLE001 - gone already
                    pass
                c = None
        finally:
            job.done.set()
        return c


class Writer:
    """One member's writer; write is called by its workers at once, and at
    most pool of its statements run at once."""

    def __init__(self, dest, lines, pool, own):
        self.dest, self.lines, self.pool, self.own = dest, lines, pool, own
        self.pending = collections.deque()  # guarded by lines.cond, as running and queued
        self.running = 0
        self.queued = False

    def write(self, frames, clock, member, h):
        """Writes one record and reports it in a WRITE frame; reports whether it is durable in the table."""
        start = time.monotonic_ns()
        job = Job((self.dest.topic, [h.msg.partition()], [h.msg.offset()], [h.st.producer], [h.st.seq]))
        if not self.lines.submit(self, job):
            job.err = RuntimeError("the member's writer is closed")
        elif not job.done.wait(WRITE_TIMEOUT_S) and self.lines.cancel(self, job):
            job.err = TimeoutError("wait for a connection: timed out after %ds" % WRITE_TIMEOUT_S)
        else:
            job.done.wait()  # a statement that started ends by the server's statement_timeout
        if job.err is not None:
            print("librdkafka runner: member %d: destination: write into the table: %s" % (member, job.err), file=sys.stderr)
        us = (time.monotonic_ns() - start) // 1000
        frames.write(WRITE, 0 if job.err is None else FLAG_WRITE_FAILED, member, min(us, 2**31 - 1), None, clock.now(), job.held)
        return job.err is None

    def close(self):
        if self.own:
            self.lines.close()


class Handled:
    """One record of a batch and what its worker made of it."""
    __slots__ = ("msg", "st", "delivered", "outcome", "foreign", "deadline")

    def __init__(self, msg):
        self.msg = msg
        self.st = None
        self.delivered = 0
        self.outcome = ABANDONED
        self.foreign = False
        self.deadline = 0

    def lock_expired(self, now):
        return self.deadline > 0 and now > self.deadline


class Member:
    """What both group types share: a poll thread that owns the client
    (librdkafka's Python handles are not to be shared across threads), a
    pool of workers, the blocking loop's batch handling, outcome draws and
    delivery frames. Workers hand finished records back to the poll thread
    through a queue, and the poll thread acknowledges (or commits) them."""

    def __init__(self, main, mid):
        self.main, self.id, self.cfg, self.frames, self.clock = main, mid, main.cfg, main.frames, main.clock
        self.done = queue.Queue()
        self.work = queue.Queue()
        self.stop_polling = False
        self.stop_now = threading.Event()
        self.crashed = False
        self.leaving = False
        self.client = None
        self.writer = None  # the member's writer to the run's destination (Destination); None without one
        self.thread = threading.Thread(target=self._run_safe, name="member-%d" % mid, daemon=True)
        self.workers = []
        for i in range(self.cfg.workers):
            rng = random.Random(self.cfg.run ^ (mid << 16 | i))
            t = threading.Thread(target=self._worker, args=(rng,), name="member-%d-worker" % mid, daemon=True)
            self.workers.append(t)

    def start(self):
        for t in self.workers:
            t.start()
        self.thread.start()

    def leave(self):
        self.leaving = True
        self.stop_polling = True

    def crash(self):
        self.crashed = True
        self.stop_polling = True
        self.stop_now.set()

    def stop(self):
        self.stop_polling = True
        self.stop_now.set()

    def join(self):
        if not self.crashed:
            self.thread.join(self.cfg.close_timeout_ns / 1e9 + 5)

    def _run_safe(self):
        try:
            if self.cfg.destination is not None:
                self.writer = self.cfg.destination.writer()
            self.run()
        except BaseException as e:  # noqa: BLE001 - a member failing fails the runner
            if not self.stop_now.is_set():
                self.main.fail(self.id, e)
        finally:
            for _ in self.workers:
                self.work.put(None)
            if self.writer is not None:
                self.writer.close()
            self.frames.control(EXITED, self.id, 0, self.clock.now())

    def _worker(self, rng):
        while True:
            h = self.work.get()
            if h is None:
                return
            try:
                if self.stop_now.is_set():
                    h.outcome = ABANDONED
                else:
                    self.handle(h, rng)
            except Exception:  # noqa: BLE001
                h.outcome = ABANDONED
            finally:
                self.done.put(h)

    def process_batch(self, batch):
        """Hands the batch to the workers and waits until every record has an
        outcome (blocking style: the member polls again only then)."""
        for h in batch:
            self.work.put(h)
        for _ in batch:
            self.finished(self.done.get())

    def begin(self, h):
        """Decodes the stamp and writes the delivery; a record that is not
        this run's is counted foreign and marked accepted (unprocessed)."""
        st = Stamp.decode(h.msg.value())
        if st is None or st.run != self.cfg.run:
            self.frames.write(FOREIGN, 0, self.id, 0, None, self.clock.now(), 0)
            h.foreign = True
            h.outcome = ACCEPTED
            return False
        h.st = st
        h.delivered = self.clock.now()
        ts_type, ts_ms = h.msg.timestamp()
        self.frames.write(DELIVERY, 0, self.id, self.delivery_count(h.msg), st, h.delivered,
                          ts_ms * 1_000_000 if ts_type else 0)
        return True

    def delivery_count(self, msg):
        return 0

    def write(self, h):
        """Writes a processed, accepted record to the destination (a worker
        calls it after processing, before the acknowledgement or commit).
        Reports False when the write failed (counted; the caller hands the
        record back) or the member crashed before it could start."""
        if self.writer is None or h.outcome != ACCEPTED or h.foreign:
            return True
        if self.crashed:
            return False
        return self.writer.write(self.frames, self.clock, self.id, h)

    def processing_time(self, r):
        return self.main.scale(self.cfg.processing.sample(r))

    def verdict(self, poison, r):
        if poison:
            return REJECTED
        if self.cfg.transient_rate > 0 and r.random() < self.cfg.transient_rate:
            return RELEASED
        return ACCEPTED

    def sleep_ns(self, ns):
        """Sleeps ns unless the member is stopped; reports whether it slept fully."""
        if ns <= 0:
            return not self.stop_now.is_set()
        return not self.stop_now.wait(ns / 1e9)

    def poll_error(self):
        self.frames.write(POLL_ERROR, 0, self.id, 0, None, self.clock.now(), 0)

    def ack_error(self):
        if not self.crashed:
            self.frames.write(ACK_ERROR, 0, self.id, 1, None, self.clock.now(), 0)


class ShareMember(Member):
    """A share-group member on ShareConsumer: share.acknowledgement.mode from
    the config; explicit mode ACCEPTs, RELEASEs or REJECTs each record as its
    worker finishes (sent with the next poll); implicit mode lets the next
    poll accept the batch. The lock deadline is estimated as the poll's
    return plus the share lock duration (librdkafka does not report it)."""

    def delivery_count(self, msg):
        n = msg.delivery_count()
        return n if n is not None else 0

    def run(self):
        from confluent_kafka import AcknowledgeType, KafkaException, ShareConsumer
        self.ack = AcknowledgeType
        c = ShareConsumer(share_properties(self.cfg, self.id))
        self.client = c
        c.set_acknowledgement_commit_callback(lambda offsets, exc: exc is not None and self.ack_error())
        c.subscribe([self.cfg.topic])
        try:
            while not self.stop_polling:
                try:
                    msgs = c.poll(POLL_TIMEOUT_S)
                except KafkaException:
                    if self.stop_polling:
                        break
                    self.poll_error()
                    self.sleep_ns(100_000_000)
                    continue
                recs = []
                for m in msgs:
                    if m.error() is None:
                        recs.append(m)
                    else:
                        self.poll_error()
                now = self.clock.now()
                self.frames.write(POLL, 0, self.id, len(recs), None, now, 0)
                if not recs:
                    continue
                batch = []
                for m in recs:
                    h = Handled(m)
                    h.deadline = now + self.cfg.lock_ns if self.cfg.lock_ns > 0 else 0
                    batch.append(h)
                self.process_batch(batch)
                self.settle(batch)
        finally:
            if not self.crashed:
                self.close()

    def close(self):
        try:
            self.client.close()
        except Exception as e:  # noqa: BLE001
            print("librdkafka runner: member %d: close: %s" % (self.id, e), file=sys.stderr)
        if self.leaving:
            self.frames.control(LEFT, self.id, 0, self.clock.now())

    def handle(self, h, rng):
        if not self.begin(h):
            return
        poison = is_poison(h.st.run, h.st.producer, h.st.seq, self.cfg.poison_rate)
        if not self.sleep_ns(self.processing_time(rng)):
            h.outcome = ABANDONED
            return
        h.outcome = self.verdict(poison, rng)
        if not self.write(h):
            # Handed back, never dropped: explicit mode RELEASEs it in
            # finished; in implicit mode it stays unaccepted.
            h.outcome = RELEASED if self.cfg.explicit() and not self.crashed else ABANDONED

    def finished(self, h):
        """Explicit mode: acknowledges the record as its worker finishes."""
        if not self.cfg.explicit() or self.crashed:
            return
        now = self.clock.now()
        c, ack = self.client, self.ack
        if h.outcome == ACCEPTED:
            c.acknowledge(h.msg, ack.ACCEPT)
            if not h.foreign:
                self.frames.write(COMPLETION, FLAG_LOCK_EXPIRED if h.lock_expired(now) else 0, self.id, 0, h.st, now,
                                  h.delivered)
        elif h.outcome == RELEASED:
            c.acknowledge(h.msg, ack.RELEASE)
            archived = self.delivery_count(h.msg) >= self.cfg.delivery_limit
            self.frames.write(RELEASE, FLAG_ARCHIVED if archived else 0, self.id, 0, h.st, now, 0)
        elif h.outcome == REJECTED:
            c.acknowledge(h.msg, ack.REJECT)
            self.frames.write(REJECT, 0, self.id, 0, h.st, now, 0)
        else:
            c.acknowledge(h.msg, ack.RELEASE)  # unprocessed: never accept it

    def settle(self, batch):
        """Implicit mode: the next poll's ACCEPT completes the batch."""
        if self.cfg.explicit() or self.crashed:
            return
        now = self.clock.now()
        for h in batch:
            if h.foreign:
                continue
            if h.outcome == ACCEPTED:
                self.frames.write(COMPLETION, FLAG_LOCK_EXPIRED if h.lock_expired(now) else 0, self.id, 0, h.st, now,
                                  h.delivered)
            elif h.outcome == REJECTED:
                self.frames.write(REJECT, 0, self.id, 0, h.st, now, 0)


class GroupMember(Member):
    """A consumer-group member on Consumer: transient failures retried in
    place, poison records dead-lettered (skipped); after each batch the
    contiguous completed prefix of each partition is committed
    asynchronously (or stored for auto-commit), and synchronously on close.
    Rebalances run inside consume, at a batch boundary."""

    def __init__(self, main, mid):
        super().__init__(main, mid)
        self.latest = {}  # partition -> TopicPartition to commit

    def run(self):
        from confluent_kafka import Consumer, KafkaException
        props = consumer_properties(self.cfg, self.id)
        props["on_commit"] = self.on_commit
        c = Consumer(props)
        self.client = c

        def assigned(_, parts):
            for tp in parts:
                self.frames.write(ASSIGNED, 0, self.id, tp.partition, None, self.clock.now(), 0)

        def gone(_, parts):
            for tp in parts:
                if not self.crashed:
                    self.frames.write(REVOKED, 0, self.id, tp.partition, None, self.clock.now(), 0)
                self.latest.pop(tp.partition, None)

        c.subscribe([self.cfg.topic], on_assign=assigned, on_revoke=gone, on_lost=gone)
        try:
            while not self.stop_polling:
                try:
                    msgs = c.consume(num_messages=self.cfg.max_poll_records, timeout=POLL_TIMEOUT_S)
                except KafkaException:
                    if self.stop_polling:
                        break
                    self.poll_error()
                    self.sleep_ns(100_000_000)
                    continue
                recs = []
                for m in msgs:
                    if m.error() is None:
                        recs.append(m)
                    elif not m.error().code() == -191:  # _PARTITION_EOF is not an error
                        self.poll_error()
                self.frames.write(POLL, 0, self.id, len(recs), None, self.clock.now(), 0)
                if not recs:
                    continue
                batch = [Handled(m) for m in recs]
                self.process_batch(batch)
                self.settle(batch)
        finally:
            if not self.crashed:
                self.close()

    def on_commit(self, err, parts):
        if err is not None and not self.stop_now.is_set():
            self.ack_error()

    def handle(self, h, rng):
        if not self.begin(h):
            return
        poison = is_poison(h.st.run, h.st.producer, h.st.seq, self.cfg.poison_rate)
        while True:
            if not self.sleep_ns(self.processing_time(rng)):
                h.outcome = ABANDONED  # unfinished: the committed prefix stops before it
                return
            h.outcome = self.verdict(poison, rng)
            if not self.write(h):
                if self.crashed:
                    h.outcome = ABANDONED  # a crashed member writes nothing more
                    return
                h.outcome = RELEASED  # a failed write is retried in place, as a transient failure
            if h.outcome != RELEASED:
                return
            self.frames.write(RETRY, 0, self.id, 0, None, self.clock.now(), 0)

    def finished(self, h):
        pass

    def settle(self, batch):
        if self.crashed:
            return
        from confluent_kafka import TopicPartition
        now = self.clock.now()
        offs, stopped = {}, set()
        for h in batch:
            p = h.msg.partition()
            if h.outcome == ABANDONED:
                stopped.add(p)
                continue
            if not h.foreign:
                if h.outcome == ACCEPTED:
                    self.frames.write(COMPLETION, 0, self.id, 0, h.st, now, h.delivered)
                elif h.outcome == REJECTED:
                    self.frames.write(REJECT, 0, self.id, 0, h.st, now, 0)  # dead letter
            if p not in stopped:
                offs[p] = TopicPartition(h.msg.topic(), p, h.msg.offset() + 1, leader_epoch=h.msg.leader_epoch())
        if not offs:
            return
        self.latest.update(offs)
        tps = list(offs.values())
        if self.cfg.auto_commit:
            self.client.store_offsets(offsets=tps)  # auto-commit commits what is stored: processed records
            return
        try:
            self.client.commit(offsets=tps, asynchronous=True)
        except Exception:  # noqa: BLE001
            self.ack_error()

    def close(self):
        try:
            if self.latest and not self.cfg.auto_commit:
                self.client.commit(offsets=list(self.latest.values()), asynchronous=False)
        except Exception:  # noqa: BLE001
            self.ack_error()
        try:
            self.client.close()
        except Exception as e:  # noqa: BLE001
            print("librdkafka runner: member %d: close: %s" % (self.id, e), file=sys.stderr)
        if self.leaving:
            self.frames.control(LEFT, self.id, 0, self.clock.now())


class Main:
    def __init__(self, cfg, frames, clock=None):
        self.cfg, self.frames = cfg, frames
        self.clock = clock or Clock()
        self.members = {}
        self.all = []
        self.slow_factor = 1.0
        self.slow_until = 0

    def commands(self, lines):
        for line in lines:
            f = line.strip().split(" ")
            cmd = f[0]
            if cmd == "ping":
                self.frames.control(PONG, 0, int(f[1]), self.clock.now())
            elif cmd == "join":
                self.join(int(f[1]))
            elif cmd == "leave":
                m = self.members.pop(int(f[1]), None)
                if m is not None:
                    m.leave()
            elif cmd == "crash":
                m = self.members.pop(int(f[1]), None)
                if m is not None:
                    m.crash()
            elif cmd == "slow":
                self.slow_factor = float(f[1])
                self.slow_until = self.clock.now() + int(f[2])
            elif cmd == "stop":
                return
            elif cmd:
                print("librdkafka runner: unknown command " + line.strip(), file=sys.stderr)

    def join(self, mid):
        m = ShareMember(self, mid) if self.cfg.share() else GroupMember(self, mid)
        self.members[mid] = m
        self.all.append(m)  # crashed members stay referenced: their clients are never closed
        m.start()

    def stop_all(self):
        for m in self.all:
            m.stop()
        for m in self.all:
            m.join()

    def fail(self, mid, e):
        import traceback
        print("librdkafka runner: member %d failed: %r" % (mid, e), file=sys.stderr)
        traceback.print_exception(e, file=sys.stderr)
        sys.stderr.flush()
        self.frames.flush()
        os._exit(3)

    def scale(self, ns):
        if self.clock.now() >= self.slow_until:
            return ns
        return int(ns * self.slow_factor)


def main(argv):
    out = os.dup(1)  # frames only: nothing else may write to the harness's stdout
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    if len(argv) != 2:
        print("usage: runner.py CONFIG.properties", file=sys.stderr)
        return 2
    try:
        cfg = Config(load_properties(argv[1]))
    except (OSError, ValueError) as e:
        print("librdkafka runner: config %s: %s" % (argv[1], e), file=sys.stderr)
        return 2
    frames = Frames(out, 0.002)
    m = Main(cfg, frames)
    frames.control(HELLO, 0, PROTOCOL, m.clock.now())
    m.commands(sys.stdin)
    m.stop_all()
    frames.control(BYE, 0, 0, m.clock.now())
    frames.close()
    sys.stderr.flush()
    os._exit(0)  # crashed members' clients are abandoned, never closed: do not wait for their threads


if __name__ == "__main__":
    sys.exit(main(sys.argv))
