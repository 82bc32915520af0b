-- The C functions volley gives its Lua states, as one table of function
-- pointers (struct volley_api in src/script/script_api.c) reached through the FFI:
-- calls from Lua into C this way are cheap, and the C side stays plain
-- functions that never raise Lua errors. The struct layouts below mirror
-- src/script/script.h and src/script/script_api.c; change both sides together.
local ffi = require("ffi")

ffi.cdef [[
struct volley_res {
  int32_t status_;
  int32_t chunked;
  double bytes_;
  double latency_;
  double connect_;
  double waiting_;
  char *raw;
  size_t raw_len;
  size_t head_len;
  size_t body_len;
  uint32_t serial;
  int32_t body_ready;
  int32_t live;
  int32_t name_;
  size_t trailers_at;
  int32_t error_;
  double events_;
};

struct volley_event {
  const char *type_;
  size_t type_len;
  const char *data_;
  size_t data_len;
  const char *id_;
  size_t id_len;
  double t_;
  double retry_;
  double total;
  double prompt;
  int32_t tokens_;
  int32_t live;
  uint32_t serial;
  int32_t name_;
};

struct volley_names {
  int32_t next;
  int32_t stream;
};

struct volley_sample {
  double start;
  int64_t connect;
  int64_t total;
  int64_t waiting;
  int64_t body;
  int32_t status;
  int32_t keepalive;
  int64_t head_off;
  int64_t head_len;
};

struct volley_data;
struct html_doc;
struct html_node;

struct volley_api {
  int64_t (*now_ns)(void);
  int (*metric_id)(void *metrics, const char *name, int kind);
  void (*metric_add)(void *metrics, int id, double n);
  void (*metric_record)(void *metrics, int id, double value);
  const char *(*res_head)(struct volley_res *res, size_t *len);
  const char *(*res_body)(struct volley_res *res, size_t *len);
  int64_t (*hist_count)(const void *h);
  int64_t (*hist_min)(const void *h);
  int64_t (*hist_max)(const void *h);
  double (*hist_mean)(const void *h);
  double (*hist_stdev)(const void *h);
  int64_t (*hist_percentile)(const void *h, double p);
  int32_t (*hist_values)(const void *h, int64_t *values, int64_t *counts, int32_t n);
  void (*sort_doubles)(double *a, size_t n);
  double (*select_double)(double *a, size_t n, size_t k);
  int64_t (*hist_clamped)(const void *h);
  char *(*nearest_in_list)(const char *word, const char *list, char *buf, size_t len);
  int (*name_id)(struct volley_names *names, const char *name, size_t len);
  int (*flow_check_id)(void *fn, const char *name, size_t len);
  void (*flow_check)(void *flow, int id, int pass);
  int (*flow_group_id)(void *fn, const char *name, size_t len);
  void (*flow_group)(void *flow, int id, int64_t ns, int failed);
  struct volley_data *(*data_open)(const char *path, int kind, int sep, char *err, size_t errlen);
  uint32_t (*data_rows)(const struct volley_data *d);
  uint32_t (*data_fields)(const struct volley_data *d);
  const char *(*data_field_name)(const struct volley_data *d, uint32_t i, size_t *len);
  const char *(*data_cell)(const struct volley_data *d, uint32_t row, uint32_t col, size_t *len);
  uint32_t (*data_iteration_row)(struct volley_data *d, uint32_t shard, uint32_t shards);
  int (*json_valid)(const char *text, size_t len, size_t *at);
  int (*json_find)(const char *text, size_t len, const char *path, size_t path_len, size_t *off, size_t *vlen);
  int (*json_scan)(const char *text, size_t len, const char *paths, size_t paths_len, int *types, size_t *spans,
                   size_t *at);
  struct html_doc *(*html_parse)(const char *s, size_t len);
  void (*html_free)(struct html_doc *d);
  int (*html_find)(struct html_doc *d, const char *sel, size_t len, struct html_node *const **nodes, char *err,
                   size_t errlen);
  const char *(*html_attr)(const struct html_node *n, const char *name, size_t *len);
  const char *(*html_text)(struct html_doc *d, const struct html_node *n, size_t *len);
};

struct volley_flow_names {
  void *checks, *groups;
  void *flow;
};
]]

local api = {}

-- Set once per state by the bridge (volley.bridge.start).
api.c = nil

function api.set(ptr)
  api.c = ffi.cast("struct volley_api *", ptr)
end

-- The name in list (names separated by spaces) nearest to word, as a typo
-- of it, or nil when none is close (src/base/nearest.c).
function api.nearest(word, list)
  local buf = ffi.new("char[64]")
  api.c.nearest_in_list(word, list, buf, 64)
  return buf[0] ~= 0 and ffi.string(buf) or nil
end

-- The k-th and (k+1)-th smallest of the numbers t[1..n] (k 1-based; the
-- second is nil when k == n), in C without sorting: t is not changed.
function api.select_pair(t, n, k)
  local a = ffi.new("double[?]", n)
  for i = 1, n do a[i - 1] = t[i] end
  local x = api.c.select_double(a, n, k - 1)
  if k == n then return x, nil end
  local y = a[k]
  for i = k + 1, n - 1 do
    if a[i] < y then y = a[i] end
  end
  return x, y
end

-- Sorts an array of numbers (1..#t) in place, ascending, in C: for long
-- arrays much faster than table.sort, which compares through Lua.
function api.sort_numbers(t)
  local n = #t
  if n < 2 then return end
  local a = ffi.new("double[?]", n)
  for i = 1, n do a[i - 1] = t[i] end
  api.c.sort_doubles(a, n)
  for i = 1, n do t[i] = a[i - 1] end
end

-- JSON checked and searched in place, in C (src/text/json_find.h): no
-- table is built. The types json_find answers (0: no value there).
api.JSON = { none = 0, null = 1, ["false"] = 2, ["true"] = 3, number = 4, string = 5, array = 6, object = 7 }
api.JSON_NAMES = { [0] = nil, "null", "false", "true", "number", "string", "array", "object" }

local json_at = ffi.new("size_t[2]")

-- The type number of the JSON text s (api.JSON), or 0 and the 1-based
-- byte where it goes wrong.
function api.json_valid(s)
  local t = api.c.json_valid(s, #s, json_at)
  if t == 0 then return 0, tonumber(json_at[0]) + 1 end
  return t
end

-- The value at path ("choices.0.delta.content") of the JSON text s, which
-- json_valid accepted: its type number (0: none), and its first and last
-- byte (1-based) in s.
function api.json_find(s, path)
  local t = api.c.json_find(s, #s, path, #path, json_at, json_at + 1)
  if t == 0 then return 0 end
  local first = tonumber(json_at[0]) + 1
  return t, first, first + tonumber(json_at[1]) - 1
end

return api
