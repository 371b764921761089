# Times robustbase::ltsReg (FAST-LTS, single-threaded) on the scenario CSVs written by
# `bench_lts --write-data DIR`, and reports its raw objective on the data's own scale
# (the sum of the h smallest squared residuals of the raw fit), for comparison with robust-fit.
# Usage: Rscript bench/peers/lts_robustbase.R DIR > robustbase.csv
suppressMessages(library(robustbase))
dir <- commandArgs(trailingOnly = TRUE)[1]
cat("file,n,p,seconds,objective\n")
for (f in sort(list.files(dir, pattern = "^lts_n.*\\.csv$", full.names = TRUE))) {
  df <- read.csv(f)
  t <- system.time(fit <- ltsReg(y ~ ., data = df))[["elapsed"]]
  X <- model.matrix(y ~ ., df)
  r <- df$y - drop(X %*% fit$raw.coefficients)
  objective <- sum(sort(r^2, partial = fit$quan)[1:fit$quan])
  cat(sprintf("%s,%d,%d,%.3f,%.10g\n", basename(f), nrow(df), ncol(df) - 1, t, objective))
  flush(stdout())
}
