# Times robustbase::ltsReg (FAST-LTS, default nsamp = 500, single-threaded) on the CSV files
# given (response column y), and prints file, seconds (ltsReg alone, not read.csv) and its raw
# objective on the data's own scale (the sum of the h smallest squared residuals).
# Usage: Rscript bench/peers/lts_robustbase_files.R FILE.csv ...
suppressMessages(library(robustbase))
for (f in commandArgs(trailingOnly = TRUE)) {
  df <- read.csv(f)
  t <- system.time(fit <- ltsReg(y ~ ., data = df))[["elapsed"]]
  X <- model.matrix(y ~ ., df)
  r <- df$y - drop(X %*% fit$raw.coefficients)
  cat(sprintf("%s %.3f %.10g\n", basename(f), t, sum(sort(r^2, partial = fit$quan)[1:fit$quan])))
}
