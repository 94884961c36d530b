/**
 * Loaded with `node --import` into a bench system when `BENCH_ALLOC=1` (or `survivors`): samples every allocation
 * (V8's sampling heap profiler, one sample per 8 KiB allocated on average, objects the garbage
 * collector has already freed included) and writes the profile to `ALLOCATION_PROFILE` when the
 * process exits. What a request allocates is what the garbage collector then has to clear.
 */
import { writeFileSync } from "node:fs"
import { Session } from "node:inspector"

const file = process.env.ALLOCATION_PROFILE
if (file !== undefined && file !== "") {
  const session = new Session()
  session.connect()
  session.post("HeapProfiler.enable")
  session.post("HeapProfiler.startSampling", {
    samplingInterval: 8192,
    includeObjectsCollectedByMajorGC: true,
    // `BENCH_ALLOC=survivors`: only objects that outlived a young-generation collection (what the
    // scavenger copies and what ends up promoted), the garbage collector's costlier share.
    includeObjectsCollectedByMinorGC: process.env.BENCH_ALLOC !== "survivors"
  })
  // The inspector answers a session of the same thread synchronously, so this completes on exit.
  process.on("exit", () => {
    session.post("HeapProfiler.stopSampling", (error, result) => {
      if (error === null) writeFileSync(file, JSON.stringify(result.profile))
    })
  })
}
