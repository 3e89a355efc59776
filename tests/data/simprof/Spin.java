import java.nio.file.Files;
import java.nio.file.Path;

/** Two threads that each print their Linux thread id and then spin. */
public class Spin {
    static volatile long sink;

    static long tid() throws Exception {
        return Long.parseLong(Files.readSymbolicLink(Path.of("/proc/thread-self")).getFileName().toString());
    }

    static void spin(long n) {
        long x = 1;
        for (long i = 0; i < n; i++) {
            x = x * 6364136223846793005L + 1442695040888963407L;
        }
        sink = x;
    }

    public static void main(String[] args) throws Exception {
        long n = Long.parseLong(args[0]);
        Thread[] workers = new Thread[2];
        for (int k = 0; k < workers.length; k++) {
            workers[k] = new Thread(() -> {
                try {
                    System.out.println("tid " + tid());
                } catch (Exception e) {
                    throw new RuntimeException(e);
                }
                spin(n);
            });
            workers[k].start();
        }
        for (Thread w : workers) {
            w.join();
        }
    }
}
