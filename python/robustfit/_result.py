"""FitResult: a fit's fields under the names of the CLI's JSON (`robust-fit fit --output json`)."""
import numpy as np


class FitResult:
    """The fields of `robust-fit fit --output json`, as attributes (and `to_dict()`):

    method, n, p, h, intercept, alpha (LTS only), coefficients and raw_coefficients (dicts keyed by
    name, the intercept as "(Intercept)"), scale, raw_scale, objective, r_squared, outliers and
    best_subset (1-based row numbers), subsets_tried, singular_subsets, exhaustive, seed,
    backend, selection, precision, timings_s (seconds), plus response ("y") and dropped_rows (0).
    Per-row NumPy arrays: weights, residuals, fitted, standardized_residuals.
    """

    def __init__(self, parts):
        fields = dict(parts["fields"])
        fields.pop("data", None)  # the CLI's input file name: no file here
        self._fields = fields
        self.__dict__.update(fields)
        for name in ("weights", "residuals", "fitted", "standardized_residuals"):
            setattr(self, name, np.asarray(parts[name]))

    def to_dict(self):
        """The JSON fields as a dict (what the CLI prints, without "data")."""
        return dict(self._fields)

    @property
    def coef(self):
        """The final coefficients as an array, in the order of `coefficients`."""
        return np.array(list(self.coefficients.values()))

    @property
    def outlier_mask(self):
        """Boolean array: True for the rows in `outliers`."""
        mask = np.zeros(self.n, dtype=bool)
        mask[np.asarray(self.outliers, dtype=np.int64) - 1] = True
        return mask

    def __repr__(self):
        coefficients = ", ".join(f"{name}={value:.6g}" for name, value in self.coefficients.items())
        return (f"FitResult(method={self.method!r}, n={self.n}, p={self.p}, h={self.h}, "
                f"coefficients={{{coefficients}}}, scale={self.scale:.6g}, outliers={len(self.outliers)})")
