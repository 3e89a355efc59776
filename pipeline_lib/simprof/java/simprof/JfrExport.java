package simprof;

import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedStackTrace;
import jdk.jfr.consumer.RecordedThread;
import jdk.jfr.consumer.RecordingFile;

/**
 * Reads a JFR recording with the jdk.jfr.consumer API and writes the call-stack
 * samples and SimProf's events as tab-separated tables (docs/simprof.md,
 * "Profile tables"). Stacks and methods are interned: samples name a stack id,
 * stacks list method ids from the innermost frame (depth 0) outwards.
 *
 * Usage: JfrExport RECORDING.jfr OUTPUT_DIR
 */
public final class JfrExport {
    private JfrExport() {}

    private static long nanos(Instant t) {
        return t.getEpochSecond() * 1_000_000_000L + t.getNano();
    }

    public static void main(String[] args) throws IOException {
        Path out = Paths.get(args[1]);
        Files.createDirectories(out);
        Map<String, Integer> methods = new HashMap<>();
        Map<List<Integer>, Integer> stacks = new HashMap<>();
        List<String> methodNames = new ArrayList<>();
        List<Boolean> truncated = new ArrayList<>();
        List<List<Integer>> stackList = new ArrayList<>();
        try (BufferedWriter samples = Files.newBufferedWriter(out.resolve("samples.tsv"), StandardCharsets.UTF_8);
             BufferedWriter tasks = Files.newBufferedWriter(out.resolve("tasks.tsv"), StandardCharsets.UTF_8);
             BufferedWriter counters = Files.newBufferedWriter(out.resolve("counters.tsv"), StandardCharsets.UTF_8);
             RecordingFile rec = new RecordingFile(Paths.get(args[0]))) {
            samples.write("time_ns\tos_tid\tjava_tid\tthread\tstack\n");
            tasks.write("time_ns\tevent\tos_tid\tjava_tid\ttask\tstage\tstage_attempt\tpartition\tsucceeded"
                + "\tinput_records\tinput_bytes\tshuffle_records_read\tshuffle_bytes_written"
                + "\tshuffle_records_written\toutput_records\tmemory_bytes_spilled\tdisk_bytes_spilled\n");
            counters.write("time_ns\tjava_tid\tos_tid\tcpu_ns\tuser_ns\tallocated_bytes\tminor_faults"
                + "\tmajor_faults\tvoluntary_switches\tinvoluntary_switches\trunqueue_wait_ns\n");
            while (rec.hasMoreEvents()) {
                RecordedEvent e = rec.readEvent();
                String type = e.getEventType().getName();
                long t = nanos(e.getStartTime());
                if (type.equals("jdk.ExecutionSample")) {
                    RecordedThread th = e.getThread("sampledThread");
                    RecordedStackTrace st = e.getStackTrace();
                    if (th == null || st == null) { continue; }
                    // a frame is its method and how the JVM ran it (FRAME_TYPES), packed as
                    // method * FRAME_TYPES.length + type so that a stack stays a list of ints
                    List<Integer> ids = new ArrayList<>(st.getFrames().size());
                    for (RecordedFrame f : st.getFrames()) {
                        if (!f.isJavaFrame()) { continue; }
                        String name = f.getMethod().getType().getName() + "." + f.getMethod().getName();
                        Integer id = methods.get(name);
                        if (id == null) {
                            id = methodNames.size();
                            methods.put(name, id);
                            methodNames.add(name);
                        }
                        ids.add(id * FRAME_TYPES.length + frameType(f.getType()));
                    }
                    Integer sid = stacks.get(ids);
                    if (sid == null) {
                        sid = stackList.size();
                        stacks.put(ids, sid);
                        stackList.add(ids);
                        truncated.add(st.isTruncated());
                    }
                    samples.write(t + "\t" + th.getOSThreadId() + "\t" + th.getJavaThreadId() + "\t"
                        + clean(th.getJavaName()) + "\t" + sid + "\n");
                } else if (type.equals("simprof.TaskStart") || type.equals("simprof.TaskEnd")) {
                    boolean start = type.endsWith("Start");
                    RecordedThread th = e.getThread();
                    long os = start ? e.getLong("osThreadId") : (th == null ? -1 : th.getOSThreadId());
                    tasks.write(t + "\t" + (start ? "start" : "end") + "\t" + os + "\t"
                        + (th == null ? -1 : th.getJavaThreadId()) + "\t" + e.getLong("taskId") + "\t"
                        + e.getInt("stageId") + "\t" + (start ? e.getInt("stageAttempt") : -1) + "\t"
                        + (start ? e.getInt("partition") : -1) + "\t" + (start || e.getBoolean("succeeded") ? 1 : 0));
                    String[] metrics = {"inputRecords", "inputBytes", "shuffleRecordsRead", "shuffleBytesWritten",
                        "shuffleRecordsWritten", "outputRecords", "memoryBytesSpilled", "diskBytesSpilled"};
                    for (String m : metrics) {
                        tasks.write("\t" + (start ? -1 : e.getLong(m)));
                    }
                    tasks.write("\n");
                } else if (type.equals("simprof.ThreadSample")) {
                    counters.write(t + "\t" + e.getLong("javaThreadId") + "\t" + e.getLong("osThreadId") + "\t"
                        + e.getLong("cpuNanos") + "\t" + e.getLong("userNanos") + "\t" + e.getLong("allocatedBytes")
                        + "\t" + e.getLong("minorFaults") + "\t" + e.getLong("majorFaults") + "\t"
                        + e.getLong("voluntarySwitches") + "\t" + e.getLong("involuntarySwitches") + "\t"
                        + e.getLong("runqueueWaitNanos") + "\n");
                }
            }
        }
        try (BufferedWriter m = Files.newBufferedWriter(out.resolve("methods.tsv"), StandardCharsets.UTF_8)) {
            m.write("method\tname\n");
            for (int i = 0; i < methodNames.size(); i++) {
                m.write(i + "\t" + clean(methodNames.get(i)) + "\n");
            }
        }
        try (BufferedWriter s = Files.newBufferedWriter(out.resolve("stacks.tsv"), StandardCharsets.UTF_8)) {
            s.write("stack\tdepth\tmethod\ttruncated\tframe_type\n");
            for (int i = 0; i < stackList.size(); i++) {
                List<Integer> ids = stackList.get(i);
                for (int d = 0; d < ids.size(); d++) {
                    int f = ids.get(d);
                    s.write(i + "\t" + d + "\t" + f / FRAME_TYPES.length + "\t" + (truncated.get(i) ? 1 : 0) + "\t"
                        + FRAME_TYPES[f % FRAME_TYPES.length] + "\n");
                }
            }
        }
    }

    // JFR's frame types (RecordedFrame.getType()); "" where the recording does not say
    private static final String[] FRAME_TYPES = {"", "Interpreted", "JIT compiled", "Inlined"};

    private static int frameType(String type) {
        for (int i = 1; i < FRAME_TYPES.length; i++) {
            if (FRAME_TYPES[i].equals(type)) { return i; }
        }
        return 0;
    }

    private static String clean(String s) {
        return s == null ? "" : s.replace('\t', ' ').replace('\n', ' ');
    }
}
