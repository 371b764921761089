#pragma once
// Where a computation runs. Placeholder until selection/capabilities.hpp (which moves
// regression::Backend here) is merged; the lead reconciles the two at merge.
namespace robustfit::selection {
enum class Backend { automatic, cpu, cuda };
}  // namespace robustfit::selection
