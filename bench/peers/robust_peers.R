# R peers of `robust-fit bench --peers r` (the executable carries a copy of this file, built in):
# fits robustbase::ltsReg (FAST-LTS) and MASS::lqs(method = "lms") to one CSV with columns
# x1..xp, y and prints one line per method:
#   method,seconds,objective,coefficients (";"-separated, intercept first),outliers (";"-separated 1-based rows)
# The objective is robust-fit's: LTS the sum of the h smallest squared residuals of the raw fit,
# LMS the h-th smallest squared residual, h = floor((n + 1) / 2) as lqs uses for "lms".
# Outliers: ltsReg's rows of weight 0; for lqs the rows with |residual / scale| > 2.5.
# Usage: Rscript robust_peers.R DATA.csv
suppressMessages({
  library(robustbase)
  library(MASS)
})
df <- read.csv(commandArgs(trailingOnly = TRUE)[1])
X <- model.matrix(y ~ ., df)
report <- function(method, seconds, objective, coefficients, outliers) {
  cat(sprintf("%s,%.6f,%.17g,%s,%s\n", method, seconds, objective,
              paste(sprintf("%.17g", coefficients), collapse = ";"), paste(outliers, collapse = ";")))
}
seconds <- system.time(fit <- ltsReg(y ~ ., data = df))[["elapsed"]]
r <- df$y - drop(X %*% fit$raw.coefficients)
report("ltsReg", seconds, sum(sort(r^2, partial = fit$quan)[1:fit$quan]), fit$coefficients,
       which(fit$lts.wt == 0))
seconds <- system.time(fit <- lqs(y ~ ., data = df, method = "lms"))[["elapsed"]]
h <- floor((nrow(df) + 1) / 2)
r <- drop(df$y - X %*% fit$coefficients)
report("lqs", seconds, sort(r^2, partial = h)[h], fit$coefficients, which(abs(r / fit$scale[2]) > 2.5))
