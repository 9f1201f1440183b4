// The libzip way of making a variant wheel, for comparison in bench/run: open the input with
// libzip, copy every entry raw into a new archive (zip_source_zip, whole entry: no recompression),
// keep modes, times and stored entries stored, add variant.json, close (libzip writes a temporary
// file and renames it).
// Usage: zip_libzip_copy IN.whl OUT.whl

#include <zip.h>

#include <cstdio>
#include <cstring>

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: zip_libzip_copy IN.whl OUT.whl\n");
    return 2;
  }
  int err = 0;
  zip_t* src = zip_open(argv[1], ZIP_RDONLY, &err);
  zip_t* dst = zip_open(argv[2], ZIP_CREATE | ZIP_TRUNCATE, &err);
  if (src == nullptr || dst == nullptr) {
    std::fprintf(stderr, "zip_open failed (%d)\n", err);
    return 1;
  }
  const zip_int64_t n = zip_get_num_entries(src, 0);
  for (zip_int64_t i = 0; i < n; ++i) {
    zip_stat_t st;
    zip_stat_index(src, static_cast<zip_uint64_t>(i), 0, &st);
    zip_source_t* s = zip_source_zip(dst, src, static_cast<zip_uint64_t>(i), 0, 0, -1);
    const zip_int64_t j = zip_file_add(dst, st.name, s, ZIP_FL_ENC_UTF_8);
    zip_uint8_t opsys = 0;
    zip_uint32_t attr = 0;
    zip_file_get_external_attributes(src, static_cast<zip_uint64_t>(i), 0, &opsys, &attr);
    zip_file_set_external_attributes(dst, static_cast<zip_uint64_t>(j), 0, opsys, attr);
    zip_file_set_mtime(dst, static_cast<zip_uint64_t>(j), st.mtime, 0);
    if (st.comp_method == ZIP_CM_STORE) zip_set_file_compression(dst, static_cast<zip_uint64_t>(j), ZIP_CM_STORE, 0);
  }
  static const char kJson[] = "{\"variants\": {}}";
  zip_source_t* vj = zip_source_buffer(dst, kJson, std::strlen(kJson), 0);
  zip_file_add(dst, "bigpkg-1.0.dist-info/variant.json", vj, ZIP_FL_ENC_UTF_8);
  if (zip_close(dst) != 0) {
    std::fprintf(stderr, "zip_close: %s\n", zip_strerror(dst));
    return 1;
  }
  zip_discard(src);
  return 0;
}
