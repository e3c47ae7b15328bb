#include "engine/attention_tile.hpp"

namespace decodesim::engine {

double rows_per_memory_load(double tile_rows) { return tile_rows >= kOnChipTileRows ? 0.0 : tile_rows; }

}  // namespace decodesim::engine
