"""Unit tests of the librdkafka runner (run by consumers.TestLibrdkafkaRunnerUnitTests:
python3 -m unittest in this directory). They need no broker and no
confluent-kafka: the vectors are the ones the Go and Java sides check
(consumers/javarunner/src/test/resources/vectors.txt)."""

import os
import random
import unittest

import runner

VECTORS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "javarunner", "src", "test", "resources",
                       "vectors.txt")


def rows(kind):
    with open(VECTORS, encoding="utf-8") as f:
        out = [line.split() for line in f if line.strip() and not line.startswith("#")]
    return [r for r in out if r[0] == kind]


def base_props(**kw):
    p = {"bootstrap": "127.0.0.1:9092", "topic": "t", "group": "g", "type": "share", "workers": "2",
         "max_poll_records": "10", "run": "42"}
    p.update(kw)
    return p


class Vectors(unittest.TestCase):
    def test_crc32c_known_answer(self):
        # The CRC-32C check value of "123456789" (RFC 3720, appendix B.4).
        self.assertEqual(runner.crc32c_py(b"123456789"), 0xE3069283)
        self.assertEqual(runner.crc32c(b"123456789"), 0xE3069283)

    def test_frames(self):
        rs = rows("frame")
        self.assertGreaterEqual(len(rs), 3)
        for r in rs:
            kind, flags, member, n, producer, run, seq, intended, at, aux = (int(x) for x in r[2:12])
            st = runner.Stamp(run, producer, seq, intended, 0)
            got = runner.encode_frame(kind, flags, member, n, st, at, aux)
            self.assertEqual(len(got), runner.FRAME_SIZE)
            self.assertEqual(got.hex(), r[1], " ".join(r))
            b = got[:-4]
            self.assertEqual(runner.crc32c_py(b).to_bytes(4, "big"), got[-4:], "pure-Python CRC-32C")

    def test_stamps(self):
        rs = rows("stamp")
        self.assertGreaterEqual(len(rs), 3)
        for r in rs:
            st = runner.Stamp.decode(bytes.fromhex(r[1]))
            self.assertIsNotNone(st, r[1])
            self.assertEqual((st.run, st.producer, st.seq, st.intended, st.sent), tuple(int(x) for x in r[2:7]))
        self.assertIsNone(runner.Stamp.decode(b"\0" * 39))
        self.assertIsNone(runner.Stamp.decode(b"\0" * 40))
        self.assertIsNone(runner.Stamp.decode(None))

    def test_poison(self):
        rs = rows("poison")
        poisoned = 0
        for r in rs:
            want = r[5] == "1"
            poisoned += want
            self.assertEqual(runner.is_poison(int(r[1]), int(r[2]), int(r[3]), float(r[4])), want, " ".join(r))
        self.assertTrue(len(rs) >= 100 and 0 < poisoned < len(rs))
        self.assertFalse(runner.is_poison(1, 2, 3, 0))


class ConfigRefusals(unittest.TestCase):
    def refused(self, want, **kw):
        with self.assertRaises(ValueError) as e:
            runner.Config(base_props(**kw))
        self.assertIn(want, str(e.exception))

    def test_missing_key(self):
        p = base_props()
        del p["topic"]
        with self.assertRaises(ValueError) as e:
            runner.Config(p)
        self.assertIn("missing topic", str(e.exception))

    def test_refusals(self):
        self.refused("no RENEW", renew="true")
        self.refused("no share.acquire.mode", acquire_mode="record_limit")
        self.refused("classic assignors", type="consumer", assignor="sticky")
        self.refused("type: expected share or consumer", type="queue")
        self.refused("ack_mode", ack_mode="auto")
        self.refused("group_protocol", type="consumer", group_protocol="eager")
        self.refused("processing.model", **{"processing.model": "gamma"})

    def test_accepted(self):
        runner.Config(base_props(ack_mode="explicit"))
        runner.Config(base_props(type="consumer", assignor="sticky", group_protocol="consumer"))  # KIP-848 ignores it


class Properties(unittest.TestCase):
    def test_share(self):
        cfg = runner.Config(base_props(ack_mode="explicit", max_poll_records="7"))
        p = runner.share_properties(cfg, 3)
        self.assertEqual(p["share.acknowledgement.mode"], "explicit")
        self.assertEqual(p["max.poll.records"], "7")
        self.assertEqual(p["group.id"], "g")
        self.assertNotIn("session.timeout.ms", p)  # librdkafka refuses it for a share consumer
        self.assertNotIn("fetch.wait.max.ms", p)  # none set: librdkafka's own defaults

    def test_fetch_settings_reach_both_clients(self):
        fetch = dict(fetch_max_wait_ns="100000000", fetch_min_bytes="1", fetch_max_bytes="1048576",
                     fetch_max_partition_bytes="65536")
        for props in (runner.share_properties(runner.Config(base_props(**fetch)), 1),
                      runner.consumer_properties(runner.Config(base_props(type="consumer", **fetch)), 1)):
            self.assertEqual(props["fetch.wait.max.ms"], 100)
            self.assertEqual(props["fetch.min.bytes"], 1)
            self.assertEqual(props["fetch.max.bytes"], 1048576)
            self.assertEqual(props["max.partition.fetch.bytes"], 65536)

    def test_classic(self):
        cfg = runner.Config(base_props(type="consumer", assignor="roundrobin", static_membership="true",
                                       session_timeout_ns="6000000000", auto_commit="true",
                                       auto_commit_interval_ns="250000000"))
        p = runner.consumer_properties(cfg, 5)
        self.assertEqual(p["partition.assignment.strategy"], "roundrobin")
        self.assertEqual(p["group.instance.id"], "sharebench-5")
        self.assertEqual((p["session.timeout.ms"], p["heartbeat.interval.ms"], p["max.poll.interval.ms"]), (6000, 2000, 6000))
        self.assertEqual((p["enable.auto.commit"], p["enable.auto.offset.store"], p["auto.commit.interval.ms"]), (True, False, 250))

    def test_kip848(self):
        cfg = runner.Config(base_props(type="consumer", group_protocol="consumer", remote_assignor="range",
                                       session_timeout_ns="6000000000"))
        p = runner.consumer_properties(cfg, 0)
        self.assertEqual((p["group.protocol"], p["group.remote.assignor"]), ("consumer", "range"))
        for k in ("partition.assignment.strategy", "session.timeout.ms", "heartbeat.interval.ms"):
            self.assertNotIn(k, p)


class ProcessingModels(unittest.TestCase):
    def test_means(self):
        r = random.Random(1)
        n = 20000
        exp = runner.Processing("exponential", 0, 0, 0, 1_000_000, 0, 0)
        self.assertAlmostEqual(sum(exp.sample(r) for _ in range(n)) / n / 1e6, 1.0, delta=0.05)
        uni = runner.Processing("uniform", 0, 1_000_000, 3_000_000, 0, 0, 0)
        xs = [uni.sample(r) for _ in range(n)]
        self.assertTrue(min(xs) >= 1_000_000 and max(xs) < 3_000_000)
        self.assertAlmostEqual(sum(xs) / n / 1e6, 2.0, delta=0.05)
        logn = runner.Processing("lognormal", 0, 0, 0, 0, 1_000_000, 10_000_000)
        xs = sorted(logn.sample(r) for _ in range(n))
        self.assertAlmostEqual(xs[n // 2] / 1e6, 1.0, delta=0.05)
        self.assertAlmostEqual(xs[int(n * 0.99)] / 1e6, 10.0, delta=1.5)
        self.assertEqual(runner.Processing("constant", 5, 0, 0, 0, 0, 0).sample(r), 5)
        self.assertEqual(runner.Processing("none", 5, 0, 0, 0, 0, 0).sample(r), 0)


class ClientProperties(unittest.TestCase):
    """The client.* lines (connection.Settings.LibrdkafkaProperties, escaped
    by consumers/java_fleet.go propertyValue) reach both clients as written."""

    PEM = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----"

    def write(self, body):
        import tempfile
        fd, path = tempfile.mkstemp()
        self.addCleanup(os.remove, path)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(body)
        return path

    def test_escaped_lines_read_back(self):
        lines = ["%s=%s" % (k, v) for k, v in base_props().items()]
        lines += [
            "client.security.protocol=SASL_SSL",
            "client.sasl.mechanisms=SCRAM-SHA-512",
            "client.sasl.username=bench",
            # propertyValue: backslash doubled, a leading blank escaped, "=" kept, trailing blank kept
            "client.sasl.password=\\ p\\\\a=ss\\tw ",
            "client.ssl.ca.pem=-----BEGIN CERTIFICATE-----\\nMIIB\\n-----END CERTIFICATE-----",
            "client.socket.connection.setup.timeout.ms=3000",
        ]
        cfg = runner.Config(runner.load_properties(self.write("\n".join(lines) + "\n")))
        want = {"security.protocol": "SASL_SSL", "sasl.mechanisms": "SCRAM-SHA-512", "sasl.username": "bench",
                "sasl.password": " p\\a=ss\tw ", "ssl.ca.pem": self.PEM, "socket.connection.setup.timeout.ms": "3000"}
        self.assertEqual(cfg.client, want)
        share = runner.share_properties(cfg, 1)
        group = runner.consumer_properties(runner.Config(dict(base_props(type="consumer"), **{
            "client." + k: v for k, v in want.items()})), 2)
        for p in (share, group):
            for k, v in want.items():
                self.assertEqual(p[k], v, k)
            self.assertEqual(p["bootstrap.servers"], "127.0.0.1:9092")
        self.assertEqual(share["client.id"], "sharebench-librdkafka-1")  # the runner's own client.id, not a prefix slip

    def test_none_without_connection(self):
        cfg = runner.Config(base_props())
        self.assertEqual(cfg.client, {})
        self.assertNotIn("security.protocol", runner.share_properties(cfg, 0))
        self.assertNotIn("security.protocol", runner.consumer_properties(runner.Config(base_props(type="consumer")), 0))


class DestinationStage(unittest.TestCase):
    def props(self, **kw):
        return base_props(**{"destination.host": "127.0.0.1", "destination.port": "1", "destination.database": "d",
                             "destination.user": "u", "destination.password": "pw", "destination.topic": "t",
                             "destination.statement": "INSERT INTO x SELECT $1, part FROM unnest($2::integer[], $3::bigint[], "
                                                      "$4::bigint[], $5::bigint[]) AS u(part, off, producer, seq)",
                             "destination.pool": "1", "destination.connections": "2"}, **kw)

    def test_settings(self):
        self.assertIsNone(runner.Config(base_props()).destination)
        d = runner.Config(self.props()).destination
        self.assertEqual(d.statement.count("%s"), 5)
        self.assertNotIn("$", d.statement)
        self.assertEqual((d.pool, d.connections, d.params["dbname"], d.params["sslmode"]), (1, 2, "d", "disable"))

    def test_failed_write_is_reported_and_handed_back(self):
        r, w = os.pipe()
        frames = runner.Frames(w, 0)
        cfg = runner.Config(self.props())
        m = runner.Main(cfg, frames)
        member = runner.ShareMember(m, 3)
        member.writer = cfg.destination.writer()  # nothing listens on port 1: every connect fails
        msg = type("Msg", (), {"partition": lambda self: 0, "offset": lambda self: 5})()
        h = runner.Handled(msg)
        h.outcome, h.st = runner.ACCEPTED, runner.Stamp(42, 1, 9, 0, 0)
        self.assertFalse(member.write(h))
        frames.close()
        os.close(w)
        data = os.read(r, 4096)
        os.close(r)
        self.assertEqual(len(data), runner.FRAME_SIZE)
        self.assertEqual((data[5], data[6], int.from_bytes(data[7:9], "big")), (runner.WRITE, runner.FLAG_WRITE_FAILED, 3))


class Commands(unittest.TestCase):
    def test_ping_slow_stop(self):
        r, w = os.pipe()
        frames = runner.Frames(w, 0)
        cfg = runner.Config(base_props())
        m = runner.Main(cfg, frames)
        m.commands(["ping 7", "slow 3 1000000000", "", "stop", "ping 8"])
        frames.close()
        os.close(w)
        data = os.read(r, 4096)
        os.close(r)
        self.assertEqual(len(data), runner.FRAME_SIZE)  # one pong; nothing after stop
        self.assertEqual(data[5], runner.PONG)
        self.assertEqual(int.from_bytes(data[9:13], "big"), 7)
        self.assertEqual(m.scale(10), 30)


if __name__ == "__main__":
    unittest.main()
