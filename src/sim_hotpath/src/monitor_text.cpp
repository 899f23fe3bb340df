// SLT texts for a whole frame at once; the scene's node tree stays in Python.
#include "monitor_text.hpp"

#include <charconv>
#include <cmath>
#include <string>

#include "pytext.hpp"

namespace sim_hotpath {
namespace {

// Python's format(v, ".6g") / ".4f": what C's printf prints (both round the exact value,
// both print -0), which to_chars with a precision is specified to print, without printf's
// cost; a NaN prints without its sign.
void put_printf(std::string& out, double v, std::chars_format format, int precision) {
  if (put_nonfinite(out, v)) return;
  char buf[400];
  const auto r = std::to_chars(buf, buf + sizeof buf, v, format, precision);
  out.append(buf, r.ptr);
}

}  // namespace

py::list slt_texts(Array<double> trf,
                   Array<bool> which, bool rcsssmj) {
  if (trf.ndim() != 3 || trf.shape(1) != 3 || trf.shape(2) != 4) throw py::value_error("slt_texts: trf is (N, 3, 4)");
  const py::ssize_t n = trf.shape(0);
  if (which.ndim() != 1 || which.shape(0) != n) throw py::value_error("slt_texts: which is (N,)");
  py::list out(n);
  std::string text;
  for (py::ssize_t i = 0; i < n; ++i) {
    if (!*which.data(i)) {
      out[i] = py::none();
      continue;
    }
    const double* t = trf.data(i, 0, 0);  // rows: rotation | translation
    text = "(SLT ";
    for (int col = 0; col < 4; ++col) {
      for (int row = 0; row < 4; ++row) {
        const double v = row < 3 ? t[4 * row + col] : (col == 3 ? 1.0 : 0.0);
        if (col || row) text += ' ';
        if (rcsssmj) {
          put_printf(text, v, std::chars_format::fixed, 4);
        } else {
          put_printf(text, v, std::chars_format::general, 6);
        }
      }
    }
    text += ')';
    out[i] = py::str(text);
  }
  return out;
}

}  // namespace sim_hotpath
