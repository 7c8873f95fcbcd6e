package sharebench.runner;

/**
 * The 40-byte stamp at the start of every record value, a port of
 * results/stamp.go (big-endian): magic "SBN1", producer, run tag, sequence,
 * intended send time, actual send time (Unix ns of the harness's clock).
 * The cross-language test vectors are src/test/resources/vectors.txt, read by
 * both this module's tests and consumers/java_vectors_test.go.
 */
public final class Stamp {
    public static final int SIZE = 40;
    static final int MAGIC = 0x53424e31;

    public final long run;
    public final int producer; // uint32
    public final long seq;
    public final long intended;
    public final long sent;

    public Stamp(long run, int producer, long seq, long intended, long sent) {
        this.run = run;
        this.producer = producer;
        this.seq = seq;
        this.intended = intended;
        this.sent = sent;
    }

    /** Decodes the stamp at the start of value, or returns null when it carries none. */
    public static Stamp decode(byte[] value) {
        if (value == null || value.length < SIZE || getInt(value, 0) != MAGIC) {
            return null;
        }
        return new Stamp(getLong(value, 8), getInt(value, 4), getLong(value, 16), getLong(value, 24), getLong(value, 32));
    }

    /**
     * isPoison decides from the record's identity alone whether it is poison,
     * so every delivery of the same record agrees: a port of consumers.isPoison
     * (splitmix64 finaliser over run ^ producer&lt;&lt;40 ^ seq, top 53 bits as a
     * uniform double below rate).
     */
    public static boolean isPoison(long run, int producer, long seq, double rate) {
        return draw(run, producer, seq, 0, rate);
    }

    /** The salt of the stuck draw (consumers.isStuck): a draw of its own, independent of isPoison's. */
    static final long STUCK_SALT = 0x5eed_57c6L;

    /**
     * isStuck decides from the record's identity alone whether it wedges its
     * worker (stuck_rate): a port of consumers.isStuck.
     */
    public static boolean isStuck(long run, int producer, long seq, double rate) {
        return draw(run, producer, seq, STUCK_SALT, rate);
    }

    /** consumers.recordDraw: a per-record coin with probability rate, the same on every delivery. */
    static boolean draw(long run, int producer, long seq, long salt, double rate) {
        if (rate <= 0) {
            return false;
        }
        long x = run ^ (Integer.toUnsignedLong(producer) << 40) ^ seq ^ (salt << 20);
        x += 0x9e3779b97f4a7c15L;
        x = (x ^ (x >>> 30)) * 0xbf58476d1ce4e5b9L;
        x = (x ^ (x >>> 27)) * 0x94d049bb133111ebL;
        x ^= x >>> 31;
        return (double) (x >>> 11) / (double) (1L << 53) < rate;
    }

    public boolean isPoison(double rate) {
        return isPoison(run, producer, seq, rate);
    }

    public boolean isStuck(double rate) {
        return isStuck(run, producer, seq, rate);
    }

    static int getInt(byte[] b, int off) {
        return (b[off] & 0xff) << 24 | (b[off + 1] & 0xff) << 16 | (b[off + 2] & 0xff) << 8 | (b[off + 3] & 0xff);
    }

    static long getLong(byte[] b, int off) {
        return Integer.toUnsignedLong(getInt(b, off)) << 32 | Integer.toUnsignedLong(getInt(b, off + 4));
    }
}
