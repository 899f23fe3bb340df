// Vision for every seeing robot in one pass over the arrays the engine hands in. Robots are
// culled by their bounding sphere against the view cone's side planes before their parts are
// looked at, so a camera's cost grows with the robots in front of it.
#include "vision.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace sim_hotpath {
namespace {

constexpr double kDeg = 180.0 / M_PI;

std::uint64_t splitmix64(std::uint64_t& x) {
  std::uint64_t z = (x += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

}  // namespace

NormalSource::NormalSource(std::uint64_t seed) {
  for (auto& word : s_) word = splitmix64(seed);
}

std::uint64_t NormalSource::next_bits() {
  const std::uint64_t result = rotl(s_[1] * 5, 7) * 9;
  const std::uint64_t t = s_[1] << 17;
  s_[2] ^= s_[0];
  s_[3] ^= s_[1];
  s_[1] ^= s_[2];
  s_[0] ^= s_[3];
  s_[2] ^= t;
  s_[3] = rotl(s_[3], 45);
  return result;
}

double NormalSource::uniform() { return static_cast<double>(next_bits() >> 11) * 0x1.0p-53; }

double NormalSource::next() {
  if (has_spare_) {
    has_spare_ = false;
    return spare_;
  }
  double u, v, s;
  do {
    u = 2.0 * uniform() - 1.0;
    v = 2.0 * uniform() - 1.0;
    s = u * u + v * v;
  } while (s >= 1.0 || s == 0.0);
  const double scale = std::sqrt(-2.0 * std::log(s) / s);
  spare_ = v * scale;
  has_spare_ = true;
  return u * scale;
}

VisionKernel::VisionKernel(py::list names, Array<double> landmarks,
                           Array<double> lines,
                           Array<bool> shown, py::object polar,
                           py::object seen_player, py::object vision, Figures figures, bool noise, std::uint64_t seed)
    : polar_(std::move(polar)),
      seen_player_(std::move(seen_player)),
      vision_(std::move(vision)),
      fig_(figures),
      tan2_(std::pow(std::tan(figures.view_half_angle_deg / kDeg), 2)),
      noise_(noise),
      normal_(seed) {
  for (auto name : names) names_.push_back(py::reinterpret_borrow<py::object>(name));
  const py::ssize_t n_marks = static_cast<py::ssize_t>(names_.size()) - 1;  // the last name is the ball's
  if (n_marks < 0) throw py::value_error("names end with the ball's");
  require_shape(landmarks, {n_marks, 3}, "landmarks (one row per landmark name)");
  require_shape(lines, {-1, 6}, "lines");
  require_shape(shown, {-1, n_marks + 1}, "shown");
  landmarks_.assign(landmarks.data(), landmarks.data() + landmarks.size());
  lines_.assign(lines.data(), lines.data() + lines.size());
  for (py::ssize_t d = 0; d < shown.shape(0); ++d) shown_.emplace_back(shown.data(d, 0), shown.data(d, 0) + n_marks + 1);
  if (!PyType_Check(polar_.ptr()) || !PyType_IsSubtype(reinterpret_cast<PyTypeObject*>(polar_.ptr()), &PyTuple_Type))
    throw py::type_error("polar must be a tuple type");
  polar_type_ = reinterpret_cast<PyTypeObject*>(polar_.ptr());
}

void VisionKernel::set_owners(py::list groups) {
  std::vector<Group> out;
  int max_row = 0;
  for (auto item : groups) {
    auto group = item.cast<py::tuple>();
    if (group.size() != 3) throw py::value_error("a group is (team, unum, [(part, row)])");
    Group g{group[0], group[1], {}};
    for (auto part : group[2].cast<py::list>()) {
      auto pair = part.cast<py::tuple>();
      const int row = pair[1].cast<int>();
      if (row < 1) throw py::value_error("part rows start at 1 (row 0 is the ball)");
      max_row = std::max(max_row, row);
      g.parts.emplace_back(py::reinterpret_borrow<py::object>(pair[0]), row);
    }
    if (!g.parts.empty()) out.push_back(std::move(g));
  }
  groups_ = std::move(out);
  max_row_ = max_row;
}

void VisionKernel::Camera::local(const double* p, double* out) const {
  const double d[3] = {p[0] - pos[0], p[1] - pos[1], p[2] - pos[2]};
  direction(d, out);
  out[0] += calib[0];
  out[1] += calib[1];
  out[2] += calib[2];
}

void VisionKernel::Camera::direction(const double* d, double* out) const {
  for (int j = 0; j < 3; ++j) out[j] = d[0] * rot[j] + d[1] * rot[3 + j] + d[2] * rot[6 + j];
}

void VisionKernel::polar(const double* local, double* out) const {
  const double flat = std::sqrt(local[0] * local[0] + local[1] * local[1]);  // field scale: no overflow
  out[0] = std::sqrt(flat * flat + local[2] * local[2]);
  out[1] = std::atan2(local[1], local[0]) * kDeg;
  out[2] = std::atan2(local[2], flat) * kDeg;
}

bool VisionKernel::in_view(const double* local) const {
  // The cone without trigonometry: |azimuth| <= a is x > 0 and |y| <= tan(a) x, |elevation|
  // <= a is |z| <= tan(a) hypot(x, y) (squared); near its edges the angles decide.
  const double x = local[0], y = local[1], z = local[2];
  const double flat2 = x * x + y * y;
  const double margin = 1e-9 * (flat2 + z * z) + 1e-12;
  if (x <= 0 && flat2 > margin) return false;
  if (y * y > tan2_ * x * x + margin) return false;
  if (z * z > tan2_ * flat2 + margin) return false;
  return true;
}

bool VisionKernel::visible(const double* pol) const {
  return std::abs(pol[1]) <= fig_.view_half_angle_deg && std::abs(pol[2]) <= fig_.view_half_angle_deg &&
         pol[0] > fig_.min_distance;
}

void VisionKernel::add_noise(double* pol) {
  const double n0 = normal_.next(), n1 = normal_.next(), n2 = normal_.next();
  pol[0] += n0 * fig_.sigma_distance_per_100m * pol[0] / 100.0;
  pol[1] += n1 * fig_.sigma_azimuth_deg;
  pol[2] += n2 * fig_.sigma_elevation_deg;
}

py::object VisionKernel::polar_of(double d, double a, double e) {
#if PY_VERSION_HEX < 0x030E0000
  // What tuple.__new__(Polar, (d, a, e)) makes, without the argument tuple: up to Python 3.13
  // a tuple subclass instance is its items and nothing else.
  PyObject* t = polar_type_->tp_alloc(polar_type_, 3);
  if (t == nullptr) throw py::error_already_set();
  py::object result = py::reinterpret_steal<py::object>(t);
  const double v[3] = {d, a, e};
  for (int i = 0; i < 3; ++i) {
    PyObject* f = PyFloat_FromDouble(v[i]);
    if (f == nullptr) throw py::error_already_set();
    PyTuple_SET_ITEM(t, i, f);
  }
  return result;
#else
  // 3.14 tuples cache their hash in a field tp_alloc does not set: let tuple.__new__ make it
  py::tuple args = py::make_tuple(py::make_tuple(d, a, e));
  PyObject* t = PyTuple_Type.tp_new(polar_type_, args.ptr(), nullptr);
  if (t == nullptr) throw py::error_already_set();
  return py::reinterpret_steal<py::object>(t);
#endif
}

// In the camera frame a line is p(t) = A + t D, t in [0, 1]. The azimuth limit is two
// half-spaces (tan x -+ y >= 0), each linear in t; the elevation limit |z| <= tan hypot(x, y)
// is q(t) = tan^2 (x^2 + y^2) - z^2 >= 0, quadratic in t. The seen part runs from the first
// to the last t satisfying all of them: among the ends of the linear interval and q's roots.
py::list VisionKernel::seen_lines(const Camera& cam) {
  py::list out;
  const double tan = std::tan(fig_.view_half_angle_deg / kDeg);
  const double t2 = tan * tan;
  const size_t n = lines_.size() / 6;
  for (size_t k = 0; k < n; ++k) {
    const double* line = &lines_[6 * k];
    double a[3], d[3];
    cam.local(line, a);
    const double span[3] = {line[3] - line[0], line[4] - line[1], line[5] - line[2]};
    cam.direction(span, d);
    double lo = 0.0, hi = 1.0;
    for (double sign : {-1.0, 1.0}) {
      const double f0 = tan * a[0] + sign * a[1], fd = tan * d[0] + sign * d[1];
      if (fd > 0) lo = std::max(lo, -f0 / fd);
      if (fd < 0) hi = std::min(hi, -f0 / fd);
      if (fd == 0 && f0 < 0) hi = -1.0;
    }
    if (!(lo <= hi)) continue;
    const double qa = t2 * (d[0] * d[0] + d[1] * d[1]) - d[2] * d[2];
    const double qb = 2 * (t2 * (a[0] * d[0] + a[1] * d[1]) - a[2] * d[2]);
    const double qc = t2 * (a[0] * a[0] + a[1] * a[1]) - a[2] * a[2];
    const double disc = qb * qb - 4 * qa * qc;
    const double sq = std::sqrt(std::max(disc, 0.0));
    const bool quadratic = std::abs(qa) > 1e-12;
    const double r1 = quadratic ? (-qb - sq) / (2 * qa) : -qc / qb;
    const double r2 = quadratic ? (-qb + sq) / (2 * qa) : -qc / qb;
    const double cands[4] = {lo, hi, r1, r2};
    double first = std::numeric_limits<double>::infinity(), last = -first;
    for (int c = 0; c < 4; ++c) {
      const double t = cands[c];
      const bool root = c >= 2 && disc >= 0 && std::isfinite(t);
      const bool ok = (((qa * t + qb) * t + qc) >= 0 || root) && t >= lo - 1e-12 && t <= hi + 1e-12;
      if (ok) {
        first = std::min(first, t);
        last = std::max(last, t);
      }
    }
    if (!(first <= last)) continue;
    double ends[2][3];
    for (int e = 0; e < 2; ++e) {
      const double t = e == 0 ? first : last;
      const double p[3] = {a[0] + t * d[0], a[1] + t * d[1], a[2] + t * d[2]};
      polar(p, ends[e]);
    }
    if (noise_) {
      add_noise(ends[0]);
      add_noise(ends[1]);
    }
    out.append(py::make_tuple(polar_of(ends[0][0], ends[0][1], ends[0][2]),
                              polar_of(ends[1][0], ends[1][1], ends[1][2])));
  }
  return out;
}

py::list VisionKernel::see(Array<double> cam_pos,
                           Array<double> cam_rot,
                           Array<double> calib,
                           Array<bool> noisy,
                           Array<bool> lines,
                           Array<std::int64_t> dialect,
                           Array<double> points) {
  const py::ssize_t n_cams = cam_pos.ndim() == 2 ? cam_pos.shape(0) : -1;
  require_shape(cam_pos, {n_cams, 3}, "cam_pos");
  require_shape(cam_rot, {n_cams, 3, 3}, "cam_rot");
  require_shape(calib, {n_cams, 3}, "calib");
  require_shape(noisy, {n_cams}, "noisy");
  require_shape(lines, {n_cams}, "lines");
  require_shape(dialect, {n_cams}, "dialect");
  require_shape(points, {-1, 3}, "points");
  if (points.shape(0) < 1 || points.shape(0) <= max_row_) throw py::index_error("points: the ball and every owner's part");
  const double* pts = points.data();
  const size_t n_marks = names_.size();  // landmarks, then the ball
  const size_t n_landmarks = n_marks - 1;

  // Each robot's bounding sphere, once for all cameras.
  std::vector<std::array<double, 4>> spheres;
  spheres.reserve(groups_.size());
  for (const Group& g : groups_) {
    double c[3] = {0, 0, 0};
    for (const auto& [_, row] : g.parts)
      for (int j = 0; j < 3; ++j) c[j] += pts[3 * row + j] / g.parts.size();
    double radius = 0;
    for (const auto& [_, row] : g.parts)
      radius = std::max(radius, std::hypot(pts[3 * row] - c[0], pts[3 * row + 1] - c[1], pts[3 * row + 2] - c[2]));
    spheres.push_back({c[0], c[1], c[2], radius});
  }
  const double tan = std::tan(fig_.view_half_angle_deg / kDeg);
  const double plane_norm = std::hypot(tan, 1.0);

  py::list out;
  for (py::ssize_t r = 0; r < n_cams; ++r) {
    Camera cam{};
    std::copy_n(cam_pos.data(r, 0), 3, cam.pos);
    std::copy_n(cam_rot.data(r, 0, 0), 9, cam.rot);
    std::copy_n(calib.data(r, 0), 3, cam.calib);
    const std::int64_t d = *dialect.data(r);
    if (d < 0 || d >= static_cast<std::int64_t>(shown_.size())) throw py::index_error("dialect row");
    const std::vector<bool>& mask = shown_[d];
    const bool noisy_here = noise_ && *noisy.data(r);
    double local[3], pol[3];

    py::dict objects;
    for (size_t i = 0; i < n_marks; ++i) {
      if (!mask[i]) continue;
      cam.local(i < n_landmarks ? &landmarks_[3 * i] : pts, local);
      if (!in_view(local)) continue;
      polar(local, pol);
      if (!visible(pol)) continue;
      if (noisy_here) add_noise(pol);
      if (PyDict_SetItem(objects.ptr(), names_[i].ptr(), polar_of(pol[0], pol[1], pol[2]).ptr()) != 0)
        throw py::error_already_set();
    }

    py::list players;
    for (size_t g = 0; g < groups_.size(); ++g) {
      const auto& s = spheres[g];
      cam.local(s.data(), local);  // the sphere against the cone's side planes
      if ((tan * local[0] - local[1]) / plane_norm < -s[3] || (tan * local[0] + local[1]) / plane_norm < -s[3])
        continue;
      py::dict found;
      for (const auto& [part, row] : groups_[g].parts) {
        cam.local(pts + 3 * row, local);
        if (!in_view(local)) continue;
        polar(local, pol);
        if (!visible(pol)) continue;
        if (noisy_here) add_noise(pol);
        if (PyDict_SetItem(found.ptr(), part.ptr(), polar_of(pol[0], pol[1], pol[2]).ptr()) != 0)
          throw py::error_already_set();
      }
      if (!found.empty()) players.append(seen_player_(groups_[g].team, groups_[g].unum, found));
    }
    py::list seen = *lines.data(r) ? seen_lines(cam) : py::list();
    out.append(vision_(objects, players, seen));
  }
  return out;
}

}  // namespace sim_hotpath
