# Times robustbase::covMcd (FAST-MCD, defaults) on the samples written by
# `bench_mcd --write-data DIR` (raw doubles, column-major; n and p in the file name), and reports
# its objective (crit: log det of the best h-subset's covariance) and the rows it flags.
# Usage: Rscript bench/peers/mcd_robustbase.R DIR [runs] > robustbase.csv
suppressMessages(library(robustbase))
args <- commandArgs(trailingOnly = TRUE)
dir <- args[1]
runs <- if (length(args) > 1) as.integer(args[2]) else 3L
cat("file,n,p,median_s,min_s,max_s,log_det,flagged\n")
for (f in sort(list.files(dir, pattern = "^mcd_n[0-9]+_p[0-9]+\\.bin$", full.names = TRUE))) {
  np <- as.numeric(regmatches(basename(f), gregexpr("[0-9]+", basename(f)))[[1]])
  n <- np[1]; p <- np[2]
  X <- matrix(readBin(f, "double", n * p), n, p)
  set.seed(1)
  times <- sapply(seq_len(runs), function(r) system.time(fit <<- covMcd(X))[["elapsed"]])
  cat(sprintf("%s,%d,%d,%.3f,%.3f,%.3f,%.10g,%d\n", basename(f), n, p, median(times), min(times), max(times),
              fit$crit, sum(fit$mcd.wt == 0)))
  flush(stdout())
}
