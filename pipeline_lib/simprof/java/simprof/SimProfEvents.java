package simprof;

import jdk.jfr.Category;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/** The JFR events the profiler adds to a recording (docs/simprof.md, "Thread profiling"). */
public final class SimProfEvents {
    private SimProfEvents() {}

    /** A task starts on the recording thread (the event's thread is the executor thread). */
    @Name("simprof.TaskStart") @Label("Task start") @Category("SimProf") @StackTrace(false)
    public static final class TaskStart extends Event {
        @Label("Task attempt id") public long taskId;
        @Label("Stage id") public int stageId;
        @Label("Stage attempt") public int stageAttempt;
        @Label("Partition") public int partition;
        @Label("OS thread id") public long osThreadId;
    }

    /** A task ends on the recording thread, with the Spark task metrics that are final by then. */
    @Name("simprof.TaskEnd") @Label("Task end") @Category("SimProf") @StackTrace(false)
    public static final class TaskEnd extends Event {
        @Label("Task attempt id") public long taskId;
        @Label("Stage id") public int stageId;
        @Label("Succeeded") public boolean succeeded;
        @Label("Input records read") public long inputRecords;
        @Label("Input bytes read") public long inputBytes;
        @Label("Shuffle records read") public long shuffleRecordsRead;
        @Label("Shuffle bytes written") public long shuffleBytesWritten;
        @Label("Shuffle records written") public long shuffleRecordsWritten;
        @Label("Output records written") public long outputRecords;
        @Label("Memory bytes spilled") public long memoryBytesSpilled;
        @Label("Disk bytes spilled") public long diskBytesSpilled;
    }

    /** Per-thread counters of one executor thread, read by the sampler thread every period. */
    @Name("simprof.ThreadSample") @Label("Executor thread counters") @Category("SimProf") @StackTrace(false)
    public static final class ThreadSample extends Event {
        @Label("Java thread id") public long javaThreadId;
        @Label("OS thread id") public long osThreadId;
        @Label("Thread CPU time (ns)") public long cpuNanos;
        @Label("Thread user time (ns)") public long userNanos;
        @Label("Bytes allocated by the thread") public long allocatedBytes;
        @Label("Minor page faults") public long minorFaults;
        @Label("Major page faults") public long majorFaults;
        @Label("Voluntary context switches") public long voluntarySwitches;
        @Label("Involuntary context switches") public long involuntarySwitches;
        @Label("Run-queue wait (ns)") public long runqueueWaitNanos;
    }
}
