// A stdio poker bot in Java (docs/bots-stdio.md): raises the minimum with a pair or an ace, else checks or calls.
// Build: javac -d sample_bots/java/build sample_bots/java/Bot.java    Run: "stdio:java -cp sample_bots/java/build Bot"
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

public class Bot {
    static final Pattern HOLE = Pattern.compile("\"hole_cards\":\\[\"(.)(.)\",\"(.)(.)\"\\]");

    /** The integer after "key": in a line the dealer wrote (compact JSON, one key of each name per line). */
    static long field(String line, String key) {
        Matcher m = Pattern.compile("\"" + key + "\":(-?\\d+)").matcher(line);
        return m.find() ? Long.parseLong(m.group(1)) : 0;
    }

    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, "UTF-8"));
        for (String line; (line = in.readLine()) != null; ) {
            if (line.startsWith("{\"type\":\"goodbye\"")) break;
            if (!line.startsWith("{\"type\":\"request\"")) continue; // everything else is information
            Matcher hole = HOLE.matcher(line);
            boolean strong = hole.find() && (hole.group(1).equals(hole.group(3))
                    || hole.group(1).equals("A") || hole.group(3).equals("A"));
            long minTo = field(line, "min_raise_to");
            String action = strong && minTo > 0 ? "\"bet_raise\",\"amount\":" + minTo : "\"check_call\"";
            System.out.println("{\"table\":" + field(line, "table") + ",\"request_id\":" + field(line, "request_id")
                    + ",\"action\":" + action + "}");
            System.out.flush();
        }
    }
}
