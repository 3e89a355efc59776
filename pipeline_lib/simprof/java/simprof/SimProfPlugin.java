package simprof;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.apache.spark.TaskContext;
import org.apache.spark.TaskFailedReason;
import org.apache.spark.api.plugin.DriverPlugin;
import org.apache.spark.api.plugin.ExecutorPlugin;
import org.apache.spark.api.plugin.PluginContext;
import org.apache.spark.api.plugin.SparkPlugin;
import org.apache.spark.executor.TaskMetrics;

/**
 * Spark plugin (spark.plugins=simprof.SimProfPlugin) that ties JFR's call-stack
 * samples to tasks and stages and samples each executor thread's counters.
 *
 * Executor threads register themselves when they start a task: the thread
 * resolves /proc/thread-self to learn its OS thread id, which the per-thread
 * files under /proc/self/task/ are named by (Java 17 has no API for it).
 * A daemon thread then emits one ThreadSample per registered thread every
 * spark.simprof.sampleMillis milliseconds (default 10).
 */
public final class SimProfPlugin implements SparkPlugin {
    @Override public DriverPlugin driverPlugin() { return null; }
    @Override public ExecutorPlugin executorPlugin() { return new Executor(); }

    static final class Executor implements ExecutorPlugin {
        private final Map<Long, Long> threads = new ConcurrentHashMap<>();   // java id -> OS id
        // java id -> the most bytes the thread has been read to have allocated.  HotSpot reads another
        // thread's count optimistically (bytes of retired TLABs plus the live TLAB's top minus start,
        // unsynchronised), so one read can land below the one before it; a cumulative counter that
        // steps back would give a unit a negative allocation, so each read is held at the maximum.
        private final Map<Long, Long> allocatedHigh = new ConcurrentHashMap<>();
        // Spark unsets the task context before onTaskSucceeded/onTaskFailed run
        private static final ThreadLocal<TaskContext> CURRENT = new ThreadLocal<>();
        private final com.sun.management.ThreadMXBean mx =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        private volatile boolean running = true;
        private Thread sampler;

        @Override public void init(PluginContext ctx, Map<String, String> extraConf) {
            long period = Long.parseLong(ctx.conf().get("spark.simprof.sampleMillis", "10"));
            mx.setThreadCpuTimeEnabled(true);
            mx.setThreadAllocatedMemoryEnabled(true);
            sampler = new Thread(() -> sample(period), "simprof-sampler");
            sampler.setDaemon(true);
            sampler.start();
        }

        @Override public void shutdown() {
            running = false;
            sampleAll();                      // the last counters before the executor stops
        }

        private void sample(long periodMillis) {
            long next = System.nanoTime();
            while (running) {
                sampleAll();
                next += periodMillis * 1_000_000L;
                long sleep = next - System.nanoTime();
                if (sleep > 0) {
                    try { Thread.sleep(sleep / 1_000_000L, (int) (sleep % 1_000_000L)); }
                    catch (InterruptedException e) { return; }
                } else {
                    next = System.nanoTime();   // fell behind: do not burst
                }
            }
        }

        private void sampleAll() {
            for (Map.Entry<Long, Long> t : threads.entrySet()) {
                // begin() stamps the event (its start time is the exported time_ns) at the CPU-time
                // read itself: stamped at commit, after the reads below, each snapshot would lag its
                // CPU read by a varying delay, and an interval could show more CPU than wall time.
                SimProfEvents.ThreadSample e = new SimProfEvents.ThreadSample();
                e.begin();
                long cpu = mx.getThreadCpuTime(t.getKey());
                if (cpu < 0) { continue; }       // the thread has ended
                e.javaThreadId = t.getKey();
                e.osThreadId = t.getValue();
                e.cpuNanos = cpu;
                e.userNanos = mx.getThreadUserTime(t.getKey());
                long allocated = mx.getThreadAllocatedBytes(t.getKey());
                e.allocatedBytes = allocated < 0 ? allocated : allocatedHigh.merge(t.getKey(), allocated, Math::max);
                readProc(t.getValue(), e);
                e.commit();
            }
        }

        /** Software counters of one thread from /proc (fields per proc(5)); -1 where unreadable. */
        private static void readProc(long tid, SimProfEvents.ThreadSample e) {
            Path dir = Paths.get("/proc/self/task/" + tid);
            e.minorFaults = e.majorFaults = e.voluntarySwitches = e.involuntarySwitches = e.runqueueWaitNanos = -1;
            try {
                String stat = Files.readString(dir.resolve("stat"));
                String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
                e.minorFaults = Long.parseLong(f[7]);      // field 10 of proc(5), minflt
                e.majorFaults = Long.parseLong(f[9]);      // field 12, majflt
                for (String line : Files.readAllLines(dir.resolve("status"))) {
                    if (line.startsWith("voluntary_ctxt_switches:")) {
                        e.voluntarySwitches = Long.parseLong(line.substring(24).trim());
                    } else if (line.startsWith("nonvoluntary_ctxt_switches:")) {
                        e.involuntarySwitches = Long.parseLong(line.substring(27).trim());
                    }
                }
                String[] sched = Files.readString(dir.resolve("schedstat")).trim().split(" ");
                e.runqueueWaitNanos = Long.parseLong(sched[1]);
            } catch (IOException | RuntimeException ignored) {
                // a kernel without one of these files: the counter stays -1
            }
        }

        private static long osThreadId() {
            try {
                String link = Files.readSymbolicLink(Paths.get("/proc/thread-self")).toString();
                return Long.parseLong(link.substring(link.lastIndexOf('/') + 1));
            } catch (IOException | RuntimeException e) {
                return -1;
            }
        }

        @Override public void onTaskStart() {
            TaskContext tc = TaskContext.get();
            CURRENT.set(tc);
            long os = threads.computeIfAbsent(Thread.currentThread().getId(), id -> osThreadId());
            SimProfEvents.TaskStart e = new SimProfEvents.TaskStart();
            e.taskId = tc.taskAttemptId();
            e.stageId = tc.stageId();
            e.stageAttempt = tc.stageAttemptNumber();
            e.partition = tc.partitionId();
            e.osThreadId = os;
            e.commit();
        }

        @Override public void onTaskSucceeded() { end(true); }
        @Override public void onTaskFailed(TaskFailedReason reason) { end(false); }

        private static void end(boolean ok) {
            TaskContext tc = CURRENT.get();
            CURRENT.remove();
            if (tc == null) { return; }
            TaskMetrics m = tc.taskMetrics();
            SimProfEvents.TaskEnd e = new SimProfEvents.TaskEnd();
            e.taskId = tc.taskAttemptId();
            e.stageId = tc.stageId();
            e.succeeded = ok;
            e.inputRecords = m.inputMetrics().recordsRead();
            e.inputBytes = m.inputMetrics().bytesRead();
            e.shuffleRecordsRead = m.shuffleReadMetrics().recordsRead();
            e.shuffleBytesWritten = m.shuffleWriteMetrics().bytesWritten();
            e.shuffleRecordsWritten = m.shuffleWriteMetrics().recordsWritten();
            e.outputRecords = m.outputMetrics().recordsWritten();
            e.memoryBytesSpilled = m.memoryBytesSpilled();
            e.diskBytesSpilled = m.diskBytesSpilled();
            e.commit();
        }
    }
}
