package sharebench.runner;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Frames writes the event stream to the Go harness: fixed 64-byte
 * little-endian frames (consumers/java_frames.go decodes them).
 *
 * <pre>
 * off size field
 *   0   u8  kind
 *   1   u8  flags     (1: lock expired, 2: archived)
 *   2   u16 member
 *   4   i32 n         (delivery count, poll size, partition, ping sequence, count)
 *   8   u32 producer
 *  12   u32 reserved
 *  16   u64 run       (stamp run tag)
 *  24   u64 seq
 *  32   i64 intended  (stamp intended send time)
 *  40   i64 at        (event time, runner clock ns)
 *  48   i64 aux       (delivery: record timestamp Unix ns; completion: delivered at, runner clock ns)
 *  56   i64 reserved
 * </pre>
 *
 * Writes are buffered and flushed every few milliseconds (times are taken
 * when events happen, not when they are written); control frames flush at
 * once.
 */
public final class Frames implements AutoCloseable {
    public static final int SIZE = 64;
    public static final int PROTOCOL = 1;

    public static final byte HELLO = 1, PONG = 2, POLL = 3, DELIVERY = 4, COMPLETION = 5, RELEASE = 6, REJECT = 7,
            RETRY = 8, FOREIGN = 9, POLL_ERROR = 10, ACK_ERROR = 11, RENEWAL = 12, ASSIGNED = 13, REVOKED = 14,
            LEFT = 15, EXITED = 16, BYE = 17;

    public static final int FLAG_LOCK_EXPIRED = 1, FLAG_ARCHIVED = 2;

    private final OutputStream out;
    private final ByteBuffer buf = ByteBuffer.allocate(SIZE * 1024).order(ByteOrder.LITTLE_ENDIAN);
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

    /** Encodes one frame into b at its position. */
    public static void encode(ByteBuffer b, byte kind, int flags, int member, int n, Stamp st, long at, long aux) {
        b.put(kind);
        b.put((byte) flags);
        b.putShort((short) member);
        b.putInt(n);
        b.putInt(st == null ? 0 : st.producer);
        b.putInt(0);
        b.putLong(st == null ? 0 : st.run);
        b.putLong(st == null ? 0 : st.seq);
        b.putLong(st == null ? 0 : st.intended);
        b.putLong(at);
        b.putLong(aux);
        b.putLong(0);
    }

    public void write(byte kind, int flags, int member, int n, Stamp st, long at, long aux) {
        synchronized (this) {
            if (buf.remaining() < SIZE) {
                flushLocked();
            }
            encode(buf, kind, flags, member, n, st, at, aux);
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
