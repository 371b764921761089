// Chooses k for Fisher's iris data by leave-one-out k-nearest-neighbour classification through the
// installed robust-fit package (as `robust-fit knn --train iris.csv --response species
// --mode classification --k 1,5,15`).
// Usage: knn_iris path/to/iris.csv
#include <cstdio>
#include <exception>
#include <map>
#include <string>
#include <vector>

#include "robustfit/data/csv.hpp"
#include "robustfit/neighbors/knn.hpp"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s iris.csv\n", argv[0]);
    return 2;
  }
  try {
    namespace rf = robustfit;
    const rf::data::Table table = rf::data::read_csv(argv[1]);
    const std::size_t species = table.column_index("species");
    const auto n = static_cast<Eigen::Index>(table.rows());

    // The four measurements as features; the species (text cells, kept as the column's
    // problems) numbered 0..C-1 in sorted order.
    Eigen::MatrixXd X(n, 4);
    Eigen::Index j = 0;
    for (std::size_t c = 0; c < table.columns.size(); ++c)
      if (c != species) X.col(j++) = Eigen::Map<const Eigen::VectorXd>(table.columns[c].values.data(), n);
    std::map<std::string, int> classes;
    for (const auto& cell : table.columns[species].problems) classes.emplace(cell.text, 0);
    int code = 0;
    for (auto& [name, value] : classes) value = code++;
    Eigen::VectorXd y(n);
    for (const auto& cell : table.columns[species].problems)
      y[static_cast<Eigen::Index>(cell.row)] = classes.at(cell.text);

    rf::neighbors::KnnOptions options;
    options.mode = rf::neighbors::Mode::classification;
    const std::vector<std::size_t> ks{1, 5, 15};
    const auto loo = rf::neighbors::knn_loo(X, y, ks, options);

    // 17 significant digits: the values round-trip, so they can be compared with the CLI's.
    for (std::size_t i = 0; i < loo.ks.size(); ++i) std::printf("loo %zu %.17g\n", loo.ks[i], loo.errors[i]);
    std::printf("best_k %zu\nbackend %s\n", loo.best_k, loo.backend.c_str());
  } catch (const std::exception& error) {
    std::fprintf(stderr, "knn_iris: %s\n", error.what());
    return 1;
  }
}
