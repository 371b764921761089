# The search-quality suite (issue 15): hard contaminated regression data sets, written as CSV
# (columns x1..xp, y) with a manifest. Deterministic: set.seed per data set.
# Usage: Rscript bench/search_quality/suite.R OUTDIR
#
# Clean rows: x ~ N(0, I_p), y = 1 + sum(x) + N(0, 1).
# A fraction eps of rows (the last round(eps n); row order carries no information to the fits)
# is replaced by one of these shapes:
#   lev_tight / lev_mid / lev_loose   bad leverage clustered around one far point:
#       x ~ x0 + s N(0, I), x0 = (10 / sqrt(p)) (1, ..., 1) (distance 10 from the clean centre),
#       y = 1 + sum(x0) - 20 + s N(0, 1), with s = 0.01 / 0.1 / 1
#   vert_cluster  vertical outliers in a cluster: x as the clean rows, y = model + 15 + 0.3 N(0, 1)
#   mixed         half lev_tight (s = 0.05), half vert_cluster
args <- commandArgs(trailingOnly = TRUE)
out <- if (length(args) >= 1) args[1] else "suite"
dir.create(out, showWarnings = FALSE, recursive = TRUE)

shapes <- c("lev_tight", "lev_mid", "lev_loose", "vert_cluster", "mixed")
spread <- c(lev_tight = 0.01, lev_mid = 0.1, lev_loose = 1)
grid <- data.frame(n = c(100, 100, 400, 400, 1000, 2000, 5000),
                   p = c(2, 5, 3, 10, 5, 20, 10),
                   eps = c(0.3, 0.45, 0.4, 0.45, 0.45, 0.3, 0.4))
cases <- do.call(rbind, lapply(shapes, function(s) cbind(shape = s, grid)))
cases <- rbind(cases,
               data.frame(shape = c("lev_tight", "mixed"), n = 300, p = 20, eps = 0.45),
               data.frame(shape = c("lev_tight", "mixed", "vert_cluster"), n = 1e5, p = 5, eps = c(0.4, 0.45, 0.3)))

leverage <- function(m, p, s) {
  x0 <- rep(10 / sqrt(p), p)
  x <- matrix(rnorm(m * p, sd = s), m, p) + matrix(x0, m, p, byrow = TRUE)
  list(x = x, y = 1 + sum(x0) - 20 + s * rnorm(m))
}
vertical <- function(m, p) {
  x <- matrix(rnorm(m * p), m, p)
  list(x = x, y = 1 + rowSums(x) + 15 + 0.3 * rnorm(m))
}

manifest <- data.frame()
for (i in seq_len(nrow(cases))) {
  k <- cases[i, ]
  set.seed(1000 + i)
  n <- k$n; p <- k$p; m <- round(k$eps * n)
  x <- matrix(rnorm(n * p), n, p)
  y <- 1 + rowSums(x) + rnorm(n)
  bad <- if (m > 0) (n - m + 1):n else integer(0)
  if (k$shape %in% names(spread)) {
    o <- leverage(m, p, spread[[k$shape]])
  } else if (k$shape == "vert_cluster") {
    o <- vertical(m, p)
  } else {  # mixed
    a <- leverage(m %/% 2, p, 0.05); b <- vertical(m - m %/% 2, p)
    o <- list(x = rbind(a$x, b$x), y = c(a$y, b$y))
  }
  x[bad, ] <- o$x; y[bad] <- o$y
  d <- as.data.frame(x); names(d) <- paste0("x", seq_len(p)); d$y <- y
  file <- sprintf("%02d_%s_n%d_p%d_eps%02d.csv", i, k$shape, n, p, round(100 * k$eps))
  write.csv(d, file.path(out, file), row.names = FALSE)
  manifest <- rbind(manifest, data.frame(file = file, shape = k$shape, n = n, p = p, eps = k$eps))
}
write.csv(manifest, file.path(out, "manifest.csv"), row.names = FALSE)
