package simprof;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Pattern;

import org.apache.spark.api.java.JavaPairRDD;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.graphx.Graph;
import org.apache.spark.graphx.GraphLoader;
import org.apache.spark.graphx.lib.ConnectedComponents;
import org.apache.spark.graphx.lib.PageRank;
import org.apache.spark.ml.Pipeline;
import org.apache.spark.ml.PipelineModel;
import org.apache.spark.ml.PipelineStage;
import org.apache.spark.ml.classification.NaiveBayes;
import org.apache.spark.ml.evaluation.MulticlassClassificationEvaluator;
import org.apache.spark.ml.feature.HashingTF;
import org.apache.spark.ml.feature.Tokenizer;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.functions;
import org.apache.spark.storage.StorageLevel;
import scala.Tuple2;
import scala.reflect.ClassTag;
import scala.reflect.ClassTag$;

/**
 * The data-analytic jobs SimProf profiles (seed 000, Table 10). All their work
 * runs in the JVM: Java lambdas on RDDs, MLlib and GraphX.
 *
 * Usage: Jobs JOB INPUT OUTPUT_DIR PARTITIONS [ARG]; writes OUTPUT_DIR/summary.json,
 * which the Python side checks against its own reference (pipeline_lib/simprof/jobs.py).
 */
public final class Jobs {
    private Jobs() {}

    public static void main(String[] args) throws Exception {
        if (args.length < 4) {
            System.err.println("usage: Jobs JOB INPUT OUTPUT_DIR PARTITIONS [ARG]");
            System.exit(2);
        }
        String job = args[0], in = args[1], out = args[2];
        int parts = Integer.parseInt(args[3]);
        String arg = args.length > 4 ? args[4] : "";
        SparkSession spark = SparkSession.builder().appName("simprof-" + job).getOrCreate();
        JavaSparkContext sc = JavaSparkContext.fromSparkContext(spark.sparkContext());
        Map<String, Object> summary = new LinkedHashMap<>();
        summary.put("job", job);
        switch (job) {
            case "wordcount": wordCount(sc, in, out, parts, summary); break;
            case "sort": sort(sc, in, out, parts, summary); break;
            case "grep": grep(sc, in, out, parts, arg, summary); break;
            case "naivebayes": naiveBayes(spark, in, parts, Long.parseLong(arg.isEmpty() ? "1" : arg), summary); break;
            case "cc": connectedComponents(sc, in, out, parts, summary); break;
            case "pagerank": pageRank(sc, in, out, parts, Integer.parseInt(arg.isEmpty() ? "10" : arg), summary); break;
            default:
                System.err.println("unknown job " + job);
                System.exit(2);
        }
        spark.stop();
        Files.writeString(Paths.get(out, "summary.json"), json(summary), StandardCharsets.UTF_8);
    }

    private static void wordCount(JavaSparkContext sc, String in, String out, int parts, Map<String, Object> s) {
        JavaPairRDD<String, Integer> counts = sc.textFile(in, parts)
            .flatMap(l -> Arrays.asList(l.split(" ")).iterator())
            .filter(w -> !w.isEmpty())
            .mapToPair(w -> new Tuple2<>(w, 1))
            .reduceByKey(Integer::sum);
        counts.saveAsTextFile(out + "/data");
        // the shuffle output is reused: these actions do not count again
        s.put("distinct_words", counts.count());
        s.put("words", counts.values().map(Integer::longValue).reduce(Long::sum));
    }

    private static void sort(JavaSparkContext sc, String in, String out, int parts, Map<String, Object> s) {
        JavaRDD<String> sorted = sc.textFile(in, parts).mapToPair(l -> new Tuple2<>(l, 0)).sortByKey(true, parts).keys();
        sorted.saveAsTextFile(out + "/data");
        // partition 0 of the range-partitioned result holds the smallest keys; the
        // shuffle output is reused, so these actions do not sort again
        s.put("records", sorted.count());
        s.put("first", sorted.first());
    }

    private static void grep(JavaSparkContext sc, String in, String out, int parts, String regex, Map<String, Object> s) {
        Pattern p = Pattern.compile(regex);
        JavaRDD<String> hits = sc.textFile(in, parts).filter(l -> p.matcher(l).find());
        hits.saveAsTextFile(out + "/data");
        s.put("matches", sc.textFile(out + "/data").count());
    }

    private static void naiveBayes(SparkSession spark, String in, int parts, long seed, Map<String, Object> s) {
        Dataset<Row> raw = spark.read().text(in).repartition(parts);
        Column f = functions.split(functions.col("value"), "\t");
        Dataset<Row> df = raw.select(f.getItem(0).cast("double").as("label"), f.getItem(1).as("text"));
        Pipeline pipe = new Pipeline().setStages(new PipelineStage[] {
            new Tokenizer().setInputCol("text").setOutputCol("words"),
            new HashingTF().setInputCol("words").setOutputCol("features").setNumFeatures(1 << 16),
            new NaiveBayes()});
        Dataset<Row>[] split = df.randomSplit(new double[] {0.8, 0.2}, seed);
        PipelineModel model = pipe.fit(split[0]);
        double acc = new MulticlassClassificationEvaluator().setMetricName("accuracy").evaluate(model.transform(split[1]));
        s.put("documents", df.count());
        s.put("accuracy", acc);
    }

    private static <T> ClassTag<T> tag(Class<T> c) {
        return ClassTag$.MODULE$.apply(c);
    }

    private static Graph<Object, Object> graph(JavaSparkContext sc, String in, int parts) {
        return GraphLoader.edgeListFile(sc.sc(), in, false, parts,
            StorageLevel.MEMORY_ONLY(), StorageLevel.MEMORY_ONLY());
    }

    private static void connectedComponents(JavaSparkContext sc, String in, String out, int parts, Map<String, Object> s) {
        Graph<Object, Object> cc = ConnectedComponents.run(graph(sc, in, parts), tag(Object.class), tag(Object.class));
        JavaPairRDD<Object, Object> v = cc.vertices().toJavaRDD().mapToPair(t -> t);
        v.saveAsTextFile(out + "/data");
        s.put("vertices", v.count());
        s.put("components", v.values().distinct().count());
    }

    private static void pageRank(JavaSparkContext sc, String in, String out, int parts, int iters, Map<String, Object> s) {
        Graph<Object, Object> pr = PageRank.run(graph(sc, in, parts), iters, 0.15, tag(Object.class), tag(Object.class));
        JavaRDD<Double> ranks = pr.vertices().toJavaRDD().map(t -> (Double) t._2());
        pr.vertices().toJavaRDD().saveAsTextFile(out + "/data");
        s.put("vertices", ranks.count());
        s.put("rank_sum", ranks.reduce(Double::sum));
    }

    private static String json(Map<String, Object> m) {
        StringBuilder b = new StringBuilder("{");
        for (Map.Entry<String, Object> e : m.entrySet()) {
            if (b.length() > 1) { b.append(", "); }
            b.append('"').append(e.getKey()).append("\": ");
            Object v = e.getValue();
            if (v instanceof Number) {
                b.append(v);
            } else {
                b.append('"').append(v.toString().replace("\\", "\\\\").replace("\"", "\\\"")).append('"');
            }
        }
        return b.append("}\n").toString();
    }
}
