package sharebench.runner;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The Java side of the cross-language vectors (vectors.txt; the Go side is
 * consumers/java_vectors_test.go): the stamp layout, the poison draw and the
 * frame layout must agree with Go bit for bit.
 */
class VectorsTest {
    static List<String[]> rows() throws Exception {
        List<String[]> out = new ArrayList<>();
        try (InputStream in = VectorsTest.class.getResourceAsStream("/vectors.txt")) {
            assertNotNull(in, "vectors.txt on the test classpath");
            BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
            for (String line; (line = r.readLine()) != null; ) {
                line = line.trim();
                if (!line.isEmpty() && !line.startsWith("#")) {
                    out.add(line.split("\\s+"));
                }
            }
        }
        return out;
    }

    /** The hex of the frame vector whose fields (kind … aux) are fields. */
    static String frameHex(String fields) {
        try {
            for (String[] row : rows()) {
                if (row[0].equals("frame") && String.join(" ", List.of(row).subList(2, row.length)).equals(fields)) {
                    return row[1];
                }
            }
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
        throw new IllegalArgumentException("no frame vector " + fields);
    }

    @Test
    void stamps() throws Exception {
        int n = 0;
        for (String[] row : rows()) {
            if (!row[0].equals("stamp")) {
                continue;
            }
            n++;
            Stamp st = Stamp.decode(HexFormat.of().parseHex(row[1]));
            assertNotNull(st, row[1]);
            assertEquals(Long.parseUnsignedLong(row[2]), st.run, "run " + row[1]);
            assertEquals((int) Long.parseLong(row[3]), st.producer, "producer " + row[1]);
            assertEquals(Long.parseUnsignedLong(row[4]), st.seq, "seq " + row[1]);
            assertEquals(Long.parseLong(row[5]), st.intended, "intended " + row[1]);
            assertEquals(Long.parseLong(row[6]), st.sent, "sent " + row[1]);
        }
        assertTrue(n >= 3);
    }

    @Test
    void notStamped() {
        assertEquals(null, Stamp.decode(new byte[39]));
        assertEquals(null, Stamp.decode(new byte[40]));
        assertEquals(null, Stamp.decode(null));
    }

    @Test
    void poison() throws Exception {
        int n = 0, poisoned = 0;
        for (String[] row : rows()) {
            if (!row[0].equals("poison")) {
                continue;
            }
            n++;
            boolean want = row[5].equals("1");
            poisoned += want ? 1 : 0;
            boolean got = Stamp.isPoison(Long.parseUnsignedLong(row[1]), (int) Long.parseLong(row[2]),
                    Long.parseUnsignedLong(row[3]), Double.parseDouble(row[4]));
            assertEquals(want, got, String.join(" ", row));
        }
        assertTrue(n >= 100 && poisoned > 0 && poisoned < n);
        assertEquals(false, Stamp.isPoison(1, 2, 3, 0));
    }

    @Test
    void stuck() throws Exception {
        int n = 0, stuck = 0;
        for (String[] row : rows()) {
            if (!row[0].equals("stuck")) {
                continue;
            }
            n++;
            boolean want = row[5].equals("1");
            stuck += want ? 1 : 0;
            boolean got = Stamp.isStuck(Long.parseUnsignedLong(row[1]), (int) Long.parseLong(row[2]),
                    Long.parseUnsignedLong(row[3]), Double.parseDouble(row[4]));
            assertEquals(want, got, String.join(" ", row));
        }
        assertTrue(n >= 100 && stuck > 0 && stuck < n);
        assertEquals(false, Stamp.isStuck(1, 2, 3, 0));
    }

    @Test
    void frames() throws Exception {
        int n = 0;
        for (String[] row : rows()) {
            if (!row[0].equals("frame")) {
                continue;
            }
            n++;
            ByteBuffer b = ByteBuffer.allocate(Frames.SIZE);
            Stamp st = new Stamp(Long.parseUnsignedLong(row[7]), (int) Long.parseLong(row[6]), Long.parseUnsignedLong(row[8]),
                    Long.parseLong(row[9]), 0);
            Frames.encode(b, (byte) Integer.parseInt(row[2]), Integer.parseInt(row[3]), Integer.parseInt(row[4]),
                    Integer.parseInt(row[5]), st, Long.parseLong(row[10]), Long.parseLong(row[11]));
            assertEquals(Frames.SIZE, b.position());
            assertEquals(row[1], HexFormat.of().formatHex(b.array()), String.join(" ", row));
        }
        assertTrue(n >= 3);
    }
}
