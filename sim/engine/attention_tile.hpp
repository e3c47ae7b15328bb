#pragma once
// How much of a prompt's attention a fused (flash) attention kernel serves from one load of the
// keys and values: the height of its query tile. A flash-attention workgroup holds a tile of
// query rows on chip and streams one key/value head's cache past them, so every tile reloads the
// keys and values it attends to: a prompt of N query rows per head loads them N / rows times. At
// a long context that traffic, not the arithmetic, sets the time on a device with little bandwidth
// and a kernel with short tiles (llama.cpp's Vulkan kernel on RDNA 3.5: 16 rows; docs/model.md,
// "Attention tiles").
//
// The rows count every query row that shares the load: kernels that pack the query heads of one
// grouped-query group into a tile (llama.cpp's CUDA and HIP kernels) count them among the rows.
// They are the kernels' own constants, read from their sources and stated per backend in each
// runtime profile (RuntimeProfile::attention_tile_rows; docs/model.md gives the files and
// commits), never fitted: a backend measured by one source alone keeps its tile when that source
// is left out.


namespace decodesim::engine {

// Tiles at least this tall have their reloads served on chip: the many tiles of one head that run
// at once walk the same keys and values, and the cache in front of memory holds them. Measured:
// FlashAttention-3 reaches 600+ TFLOPS on an H100 at 8k tokens with 128-row tiles, where loading
// from HBM at every tile would cap it at 3.35 TB/s x 128 FLOP/B = 429 TFLOPS; DGX Spark's
// llama.cpp CUDA prompts (64 rows) fall with context no faster than their arithmetic. Shorter
// tiles are not: llama.cpp's 16-row Vulkan kernel on Strix Halo runs at its reload bandwidth
// (docs/model.md, "Attention tiles").
inline constexpr double kOnChipTileRows = 64.0;

// Query rows one load from device memory serves: the tile's rows, or 0 (loaded once per layer)
// for an ideal kernel or one whose tiles are served on chip.
double rows_per_memory_load(double tile_rows);

}  // namespace decodesim::engine
