// The only C++ in libgql: a shim over libdouble-conversion (the code V8
// uses), so that numbers print byte-identical to JavaScript's
// Number#toString and parse correctly rounded. Declared in core.h.
#include <double-conversion/double-conversion.h>

#include <cstddef>

using double_conversion::DoubleToStringConverter;
using double_conversion::StringBuilder;
using double_conversion::StringToDoubleConverter;

extern "C" size_t gql_dtoa(double d, char out[32]) {
  StringBuilder sb(out, 32);
  DoubleToStringConverter::EcmaScriptConverter().ToShortest(d, &sb);
  size_t n = static_cast<size_t>(sb.position());
  sb.Finalize(); // writes a NUL at out[n]; fits: the longest output is 25
  return n;
}

extern "C" double gql_strtod(const char *s, size_t len) {
  static const StringToDoubleConverter conv(StringToDoubleConverter::NO_FLAGS,
                                            0.0, 0.0, nullptr, nullptr);
  int processed = 0;
  return conv.StringToDouble(s, static_cast<int>(len), &processed);
}
