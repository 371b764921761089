# Fits every data set of the suite (suite.R) with robustbase::ltsReg(alpha = 0.5) and, for
# n <= 5000, MASS::lqs(method = "lms"), at their defaults, one seed each, single-threaded.
# Records the raw LTS objective (sum of the h smallest squared residuals of raw.coefficients,
# h = h.alpha.n(0.5, n, p) = fit$quan) and the LMS objective (the h-th smallest squared residual,
# h = floor((n + 1) / 2), lqs's default quantile) and the elapsed seconds.
# Usage: Rscript bench/search_quality/fit_r.R SUITEDIR > r_results.csv
suppressMessages({library(robustbase); library(MASS)})
dir <- commandArgs(trailingOnly = TRUE)[1]
manifest <- read.csv(file.path(dir, "manifest.csv"))
cat("file,method,seconds,objective\n")
for (i in seq_len(nrow(manifest))) {
  f <- manifest$file[i]
  d <- read.csv(file.path(dir, f))
  X <- as.matrix(d[, setdiff(names(d), "y")]); y <- d$y
  set.seed(i)
  t <- system.time(fit <- ltsReg(X, y, alpha = 0.5))[["elapsed"]]
  r <- y - drop(cbind(1, X) %*% fit$raw.coefficients)
  obj <- sum(sort(r^2, partial = fit$quan)[1:fit$quan])
  cat(sprintf("%s,lts,%.3f,%.12g\n", f, t, obj)); flush(stdout())
  if (nrow(d) <= 5000) {
    set.seed(i)
    t <- system.time(fit <- lqs(X, y, method = "lms"))[["elapsed"]]
    h <- (nrow(d) + 1) %/% 2
    r <- y - drop(cbind(1, X) %*% coef(fit))
    cat(sprintf("%s,lms,%.3f,%.12g\n", f, t, sort(r^2, partial = h)[h])); flush(stdout())
  }
}
