package sharebench.runner;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * Frames writes the event stream to the Go harness: fixed 61-byte frames in
 * the project's one wire discipline (magic, version, big-endian body,
 * CRC-32C of everything before it; consumers/java_frames.go decodes them,
 * results/wire.go seals every other blob the same way).
 *
 * <pre>
 * off size field
 *   0   4  magic     "SBRF"
 *   4   u8 version   (PROTOCOL)
 *   5   u8 kind
 *   6   u8 flags     (1: lock expired, 2: archived)
 *   7  u16 member
 *   9  i32 n         (delivery count, poll size, partition, ping sequence, count)
 *  13  u32 producer
 *  17  u64 run       (stamp run tag)
 *  25  u64 seq
 *  33  i64 intended  (stamp intended send time)
 *  41  i64 at        (event time, runner clock ns)
 *  49  i64 aux       (delivery: record timestamp Unix ns; completion: delivered at, runner clock ns)
 *  57  u32 CRC-32C (Castagnoli) of bytes 0..56
 * </pre>
 *
 * <p>A REQUESTS frame (RequestMetrics) reuses the layout: flags is its
 * record version (REQUESTS_VERSION), member the member whose client it
 * read, n the broker id, producer the connection (RequestMetrics.DATA or
 * COORDINATOR), run the request count; since version 2, seq the fetch
 * responses the client timed on that connection, intended their summed
 * time in µs (-1: unknown), aux the largest in µs.
 *
 * Writes are buffered and flushed every few milliseconds (times are taken
 * when events happen, not when they are written); control frames flush at
 * once.
 */
public final class Frames implements AutoCloseable {
    public static final int SIZE = 61;
    public static final int PROTOCOL = 2;
    static final int MAGIC = 0x53425246; // "SBRF"

    public static final byte HELLO = 1, PONG = 2, POLL = 3, DELIVERY = 4, COMPLETION = 5, RELEASE = 6, REJECT = 7,
            RETRY = 8, FOREIGN = 9, POLL_ERROR = 10, ACK_ERROR = 11, RENEWAL = 12, ASSIGNED = 13, REVOKED = 14,
            LEFT = 15, EXITED = 16, BYE = 17, REQUESTS = 18, WRITE = 19;

    /** The record version a REQUESTS frame carries in its flags byte. */
    public static final int REQUESTS_VERSION = 2;

    public static final int FLAG_LOCK_EXPIRED = 1, FLAG_ARCHIVED = 2;

    /** A WRITE frame's flag when the write failed (n: its time in µs, aux: the statement's hold of the connection in ns). */
    public static final int FLAG_WRITE_FAILED = 1;

    private final OutputStream out;
    private final ByteBuffer buf = ByteBuffer.allocate(SIZE * 1024);
    private final Thread flusher;
    private volatile boolean closed;
    private IOException failed;

    public Frames(OutputStream out, long flushEveryMillis) {
        this.out = out;
        flusher = new Thread(() -> {
            while (!closed) {
                try {
                    Thread.sleep(flushEveryMillis);
                } catch (InterruptedException e) {
                    return;
                }
                flush();
            }
        }, "frames-flusher");
        flusher.setDaemon(true);
        if (flushEveryMillis > 0) {
            flusher.start();
        }
    }

    /** Encodes one frame into b (big-endian, as ByteBuffer is by default) at its position. */
    public static void encode(ByteBuffer b, byte kind, int flags, int member, int n, Stamp st, long at, long aux) {
        if (st == null) {
            encode(b, kind, flags, member, n, 0, 0, 0, 0, at, aux);
        } else {
            encode(b, kind, flags, member, n, st.producer, st.run, st.seq, st.intended, at, aux);
        }
    }

    /** Encodes one frame from its fields (a REQUESTS frame puts its own values in the stamp's). */
    static void encode(ByteBuffer b, byte kind, int flags, int member, int n, int producer, long run, long seq, long intended,
            long at, long aux) {
        int start = b.position();
        b.putInt(MAGIC);
        b.put((byte) PROTOCOL);
        b.put(kind);
        b.put((byte) flags);
        b.putShort((short) member);
        b.putInt(n);
        b.putInt(producer);
        b.putLong(run);
        b.putLong(seq);
        b.putLong(intended);
        b.putLong(at);
        b.putLong(aux);
        CRC32C crc = new CRC32C();
        crc.update(b.array(), b.arrayOffset() + start, b.position() - start);
        b.putInt((int) crc.getValue());
    }

    public void write(byte kind, int flags, int member, int n, Stamp st, long at, long aux) {
        synchronized (this) {
            if (buf.remaining() < SIZE) {
                flushLocked();
            }
            encode(buf, kind, flags, member, n, st, at, aux);
        }
    }

    /**
     * Writes one REQUESTS frame: member's client sent count requests on
     * connection to broker, and timed timed fetch responses of sumMicros in
     * all (timed -1: unknown), the longest maxMicros.
     */
    public void requests(int member, int broker, int connection, long count, long timed, long sumMicros, long maxMicros, long at) {
        synchronized (this) {
            if (buf.remaining() < SIZE) {
                flushLocked();
            }
            long seq = Math.max(0, timed), sum = timed < 0 ? -1 : sumMicros;
            encode(buf, REQUESTS, REQUESTS_VERSION, member, broker, connection, count, seq, sum, at, timed < 0 ? 0 : maxMicros);
        }
    }

    /** Writes a control frame and flushes it at once. */
    public void control(byte kind, int member, int n, long at) {
        synchronized (this) {
            if (buf.remaining() < SIZE) {
                flushLocked();
            }
            encode(buf, kind, 0, member, n, null, at, 0);
            flushLocked();
        }
    }

    public void flush() {
        synchronized (this) {
            flushLocked();
        }
    }

    private void flushLocked() {
        if (buf.position() == 0 || failed != null) {
            buf.clear();
            return;
        }
        try {
            out.write(buf.array(), 0, buf.position());
            out.flush();
        } catch (IOException e) {
            failed = e; // the harness is gone; stdin's end stops the runner
        }
        buf.clear();
    }

    @Override
    public void close() {
        closed = true;
        flusher.interrupt();
        flush();
    }
}
