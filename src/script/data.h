/* Data files for scripts (volley.data.csv and volley.data.lines, and
 * volley.file's uploads, read whole): a file
 * read and parsed once per process, whatever number of Lua states open it,
 * and shared read-only by all of them. Cells are offsets into the one copy
 * of the file's bytes. Plain C: lua/volley/data.lua reaches it through the
 * FFI (struct volley_api). */
#ifndef VOLLEY_DATA_H
#define VOLLEY_DATA_H

#include <stddef.h>
#include <stdint.h>

/* A loaded data file; read-only once data_open returned it, except for its
 * iteration counter (atomic). Never freed: it lives until the process ends. */
struct data;

enum data_kind {
    DATA_CSV = 0,   /* RFC 4180: a header row names the fields */
    DATA_LINES = 1, /* one field per row: the line */
    DATA_BYTES = 2, /* one row, one field: the file as it is (volley.file's uploads) */
};

/* The largest data file, and the most rows one may have. */
#define DATA_MAX_BYTES ((size_t)1 << 30)
#define DATA_MAX_ROWS ((uint32_t)INT32_MAX)

/* The data file at path (as given: relative to the current directory), of
 * kind, with separator sep (csv: one byte, not '"', CR, LF or NUL; ignored
 * for lines). The first call for a (path, kind, sep) reads and parses the
 * file; later calls, from any thread, return the same struct data. Returns
 * NULL on error with one line in err (NUL-terminated, cut to errlen) that
 * names the file, and its line where there is one ("users.csv:7: 2 fields
 * where the header has 3"); a failed open is not remembered. Thread-safe. */
struct data *data_open(const char *path, enum data_kind kind, int sep, char *err, size_t errlen);

/* Data rows (the header is not one): at least 1. */
uint32_t data_rows(const struct data *d);

/* Fields per row: the header's count for csv, 1 for lines. */
uint32_t data_fields(const struct data *d);

/* Field i's name (0-based; csv only): its bytes and *len, not
 * NUL-terminated, valid for the life of the process; NULL when i is out of
 * range or d is a lines file. */
const char *data_field_name(const struct data *d, uint32_t i, size_t *len);

/* The cell of row (0-based) and col (0-based): its bytes and *len, not
 * NUL-terminated (a cell may hold any byte but NUL), valid for the life of
 * the process; NULL (and *len 0) when row or col is out of range. */
const char *data_cell(const struct data *d, uint32_t row, uint32_t col, size_t *len);

/* The process-wide iteration counter of d: returns its value and adds 1,
 * atomically (no two calls, from any threads, get the same value). */
uint64_t data_next_iteration(struct data *d);

/* The row (0-based) for the next iteration of a run split into shards
 * shards (--shard INDEX/COUNT; 1 without) of which this process is shard:
 * with j = data_next_iteration(d), the iteration's number in the whole run
 * is j * shards + shard, and its row that number modulo the rows. So no two
 * iterations of the run, in any process or thread, take the same row until
 * the file wraps. shards >= 1, shard < shards. */
uint32_t data_iteration_row(struct data *d, uint32_t shard, uint32_t shards);

#endif
