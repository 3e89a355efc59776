"""The JVM side of SimProf: building the profiler's jar, running a Spark job
in local mode under Java Flight Recorder, and reading the recording.

The jar (``java/simprof/*.java``: the jobs, the Spark plugin and the JFR
reader) is compiled against the jars of the installed ``pyspark`` package
and cached under a name made of the sources' digest, so an edit to a source
builds a new jar and nothing else does.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import time
import zipfile
from pathlib import Path

from ..io import build_once
from .perf import ThreadCounterSampler

JAVA_DIR = Path(__file__).resolve().parent / "java"
SOURCES = sorted((JAVA_DIR / "simprof").glob("*.java"))
JFC = JAVA_DIR / "simprof.jfc"
EXECUTOR_THREAD_PREFIX = "Executor task launch worker"   # Linux keeps its first 15 characters


class JvmError(RuntimeError):
    """A Java tool or a Spark job failed; the message names the log."""


def spark_home() -> Path:
    import pyspark
    return Path(pyspark.__file__).resolve().parent


def _need(tool: str) -> str:
    path = shutil.which(tool)
    if path is None:
        raise JvmError(f"'{tool}' not found on PATH: SimProf needs a JDK 17 or newer (javac, java); "
                       "on Debian: apt-get install openjdk-17-jdk-headless")
    return path


def source_digest() -> str:
    """Digest of the Java sources and the Spark version they compile against."""
    from importlib.metadata import version
    h = hashlib.sha256(version("pyspark").encode())
    for src in SOURCES:
        h.update(src.name.encode() + b"\0" + src.read_bytes())
    return h.hexdigest()[:16]


def build_jar(cache_dir) -> Path:
    """Compile the profiler's sources into ``cache_dir/simprof-<digest>.jar``
    (once per digest; concurrent builders each rename a complete jar)."""
    def build(tmp: Path) -> Path:
        classes = tmp / "classes"
        res = subprocess.run([_need("javac"), "-nowarn", "-encoding", "UTF-8", "-d", str(classes),
                              "-cp", str(spark_home() / "jars" / "*"), *map(str, SOURCES)],
                             capture_output=True, text=True)
        if res.returncode:
            raise JvmError(f"javac failed on {JAVA_DIR}:\n{res.stderr[-3000:]}")
        part = tmp / "simprof.jar"
        with zipfile.ZipFile(part, "w", zipfile.ZIP_DEFLATED) as z:   # fixed order and times: same bytes
            for f in sorted(classes.rglob("*.class")):
                info = zipfile.ZipInfo(f.relative_to(classes).as_posix(), date_time=(1980, 1, 1, 0, 0, 0))
                z.writestr(info, f.read_bytes(), zipfile.ZIP_DEFLATED)
        return part
    return build_once(Path(cache_dir) / f"simprof-{source_digest()}.jar", build)


def jfc_settings(path: Path, sample_period_ms: int) -> Path:
    """The JFR settings file with the call-stack sampling period set."""
    text = JFC.read_text().replace('<setting name="period">10 ms</setting>',
                                   f'<setting name="period">{int(sample_period_ms)} ms</setting>')
    path.write_text(text)
    return path


def run_job(jar: Path, job: str, data: Path, out_dir: Path, *, partitions: int, arg: str = "", cores: int = 2,
            driver_memory: str = "2g", profile: dict | None = None, perf_events: dict | None = None, log: Path,
            timeout_s: int = 3600, java_home: Path | None = None) -> dict:
    """Run one job with ``spark-submit --master local[cores]``.

    With ``profile`` ({"stack_period_ms", "stack_depth", "counter_period_ms"})
    the JVM records a JFR file (``out_dir/recording.jfr``) with call-stack
    samples, and the SimProf plugin adds task and per-thread counter events.
    With ``perf_events`` ({column: (type, config)}, :mod:`.perf`) a
    :class:`~.perf.ThreadCounterSampler` beside the job counts them for every
    executor thread, read every ``counter_period_ms``.
    Returns {"wall_s": seconds of the whole spark-submit, "summary": the
    job's own summary}, and with ``perf_events`` also "perf" (the sampler's
    table), "perf_refused" ({os tid: why} of threads it could not
    count) and "perf_sampler_cpu_s" (the sampler's own CPU time). The
    job's scratch space lives in ``out_dir``.  ``java_home``: the JVM to
    run the job on (the emulated mode's, :func:`.emulated.java_home`).
    """
    out_dir.mkdir(parents=True, exist_ok=True)
    local = out_dir / "spark-local"
    java_opts = ["-Dderby.system.home=" + str(out_dir / "derby")]
    conf = {"spark.ui.enabled": "false", "spark.local.dir": str(local), "spark.driver.memory": driver_memory,
            "spark.default.parallelism": str(partitions), "spark.sql.shuffle.partitions": str(partitions),
            "spark.eventLog.enabled": "false"}
    if profile:
        jfc = jfc_settings(out_dir / "simprof.jfc", profile["stack_period_ms"])
        java_opts += [f"-XX:StartFlightRecording=filename={out_dir / 'recording.jfr'},settings={jfc}",
                      f"-XX:FlightRecorderOptions=stackdepth={int(profile['stack_depth'])}"]
        conf["spark.plugins"] = "simprof.SimProfPlugin"
        conf["spark.simprof.sampleMillis"] = str(int(profile["counter_period_ms"]))
    cmd = [str(spark_home() / "bin" / "spark-submit"), "--master", f"local[{int(cores)}]",
           "--driver-java-options", " ".join(java_opts), "--class", "simprof.Jobs"]
    for k, v in sorted(conf.items()):
        cmd += ["--conf", f"{k}={v}"]
    job_out = out_dir / "job"
    shutil.rmtree(job_out, ignore_errors=True)
    job_out.mkdir()
    cmd += [str(jar), job, str(data), str(job_out), str(int(partitions))] + ([arg] if arg else [])
    env = dict(os.environ, SPARK_HOME=str(spark_home()), PYSPARK_PYTHON="python3")
    if java_home is not None:
        env["JAVA_HOME"] = str(java_home)
    _need("java")
    t0 = time.perf_counter()
    with open(log, "w") as fh:
        # spark-submit execs spark-class, which execs the JVM: the child's pid
        # becomes the JVM's, whose executor threads the sampler follows
        proc = subprocess.Popen(cmd, stdout=fh, stderr=subprocess.STDOUT, env=env)
        sampler = None
        if perf_events:
            period_s = (profile or {}).get("counter_period_ms", 10) / 1e3
            sampler = ThreadCounterSampler(proc.pid, perf_events, period_s,
                                           name="^" + re.escape(EXECUTOR_THREAD_PREFIX[:15])).start()
        try:
            returncode = proc.wait(timeout=timeout_s)
        except BaseException as e:                     # timed out or interrupted: leave no JVM behind
            proc.kill()
            proc.wait()
            if isinstance(e, subprocess.TimeoutExpired):
                raise JvmError(f"Spark job '{job}' ran past {timeout_s} s; see {log}") from None
            raise
        finally:
            if sampler is not None:
                sampler.stop()
    wall = time.perf_counter() - t0
    if returncode:
        raise JvmError(f"Spark job '{job}' on {data} failed (exit {returncode}); see {log}")
    summary = json.loads((job_out / "summary.json").read_text())
    shutil.rmtree(local, ignore_errors=True)
    out = {"wall_s": wall, "summary": summary}
    if sampler is not None:
        out["perf"], out["perf_refused"] = sampler.table(), dict(sampler.refused)
        out["perf_sampler_cpu_s"] = sampler.cpu_s
    return out


def export_recording(jar: Path, recording: Path, out_dir: Path) -> Path:
    """Tab-separated tables from a JFR recording (``JfrExport``)."""
    res = subprocess.run([_need("java"), "-cp", str(jar), "simprof.JfrExport", str(recording), str(out_dir)],
                         capture_output=True, text=True)
    if res.returncode:
        raise JvmError(f"reading the JFR recording {recording} failed:\n{res.stderr[-3000:]}")
    return out_dir
