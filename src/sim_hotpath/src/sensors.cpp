// FRP for every foot in one pass over the step's contacts (no array operation per quantity).
#include "sensors.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

namespace sim_hotpath {
namespace {

// Rotation matrix (row-major) of a unit quaternion w x y z.
void quat_matrix(const double* q, double* m) {
  const double w = q[0], x = q[1], y = q[2], z = q[3];
  const double xx = x * x, yy = y * y, zz = z * z, xy = x * y, xz = x * z, yz = y * z;
  const double wx = w * x, wy = w * y, wz = w * z;
  m[0] = 1 - 2 * (yy + zz), m[1] = 2 * (xy - wz), m[2] = 2 * (xz + wy);
  m[3] = 2 * (xy + wz), m[4] = 1 - 2 * (xx + zz), m[5] = 2 * (yz - wx);
  m[6] = 2 * (xz - wy), m[7] = 2 * (yz + wx), m[8] = 1 - 2 * (xx + yy);
}

py::tuple vec(double x, double y, double z) { return py::make_tuple(x, y, z); }

}  // namespace

py::list foot_readings(Array<std::int64_t> links, Array<double> points, Array<double> forces,
                       Array<std::int64_t> slot_of_link, Array<double> poses, Array<std::int64_t> foot_links,
                       Array<double> box_pos, Array<double> box_rot, py::list last) {
  require_shape(links, {-1, 2}, "links");
  const py::ssize_t n_contacts = links.shape(0);
  require_shape(points, {n_contacts, 3}, "points");
  require_shape(forces, {n_contacts, 3}, "forces");
  require_shape(slot_of_link, {-1}, "slot_of_link");
  const py::ssize_t n_links = slot_of_link.shape(0);
  require_shape(poses, {n_links, 7}, "poses");
  require_shape(foot_links, {-1}, "foot_links");
  const py::ssize_t n_feet = foot_links.shape(0);
  require_shape(box_pos, {n_feet, 3}, "box_pos");
  require_shape(box_rot, {n_feet, 3, 3}, "box_rot");
  if (static_cast<py::ssize_t>(last.size()) != n_feet) throw py::value_error("bad length of last");

  std::vector<double> force(3 * n_feet, 0.0), moment(3 * n_feet, 0.0), weight(n_feet, 0.0);
  std::vector<int> count(n_feet, 0);
  const std::int64_t* pair = links.data();
  const std::int64_t* slots = slot_of_link.data();
  // First every contact's first link, then every contact's second (the force on it is the
  // opposite): the order the sums were always taken in.
  for (int side = 0; side < 2; ++side) {
    const double sign = side == 0 ? 1.0 : -1.0;
    for (py::ssize_t c = 0; c < n_contacts; ++c) {
      const std::int64_t link = pair[2 * c + side];
      if (link < 0) continue;
      if (link >= n_links) throw py::index_error("foot_readings: contact link out of range");
      const std::int64_t slot = slots[link];
      if (slot < 0) continue;
      if (slot >= n_feet) throw py::index_error("foot_readings: foot slot out of range");
      const double* f = forces.data(c, 0);
      const double* p = points.data(c, 0);
      const double fx = sign * f[0], fy = sign * f[1], fz = sign * f[2];
      const double w = std::sqrt(fx * fx + fy * fy + fz * fz);  // rcssserver3d weighs each point by |f|
      force[3 * slot] += fx, force[3 * slot + 1] += fy, force[3 * slot + 2] += fz;
      moment[3 * slot] += w * p[0], moment[3 * slot + 1] += w * p[1], moment[3 * slot + 2] += w * p[2];
      weight[slot] += w;
      count[slot] += 1;
    }
  }
  py::list out;
  for (py::ssize_t i = 0; i < n_feet; ++i) {
    const bool touching = weight[i] > 1e-12;
    if (!touching) {
      if (count[i] > 0) {  // asleep: rcssserver3d repeats its last reading (zeros before the first)
        py::object previous = last[i];
        out.append(previous.is_none() ? py::make_tuple(vec(0, 0, 0), vec(0, 0, 0)) : previous);
      } else {
        out.append(py::none());
      }
      continue;
    }
    const std::int64_t link = *foot_links.data(i);
    if (link < 0 || link >= n_links) throw py::index_error("foot_readings: foot link out of range");
    const double* pose = poses.data(link, 0);
    double r[9], b[9];
    quat_matrix(pose + 3, r);
    const double* br = box_rot.data(i, 0, 0);
    const double* bp = box_pos.data(i, 0);
    for (int row = 0; row < 3; ++row)
      for (int col = 0; col < 3; ++col)
        b[3 * row + col] = r[3 * row] * br[col] + r[3 * row + 1] * br[3 + col] + r[3 * row + 2] * br[6 + col];
    double centre[3];
    for (int k = 0; k < 3; ++k) {
      const double origin = pose[k] + r[3 * k] * bp[0] + r[3 * k + 1] * bp[1] + r[3 * k + 2] * bp[2];
      centre[k] = moment[3 * i + k] / weight[i] - origin;
    }
    double lc[3], lf[3];  // in the box's frame: b^T v
    for (int k = 0; k < 3; ++k) {
      lc[k] = b[k] * centre[0] + b[3 + k] * centre[1] + b[6 + k] * centre[2];
      lf[k] = b[k] * force[3 * i] + b[3 + k] * force[3 * i + 1] + b[6 + k] * force[3 * i + 2];
    }
    // model axes (x forward, y left, z up) -> SimSpark's (x right, y forward, z up)
    out.append(py::make_tuple(vec(-lc[1], lc[0], lc[2]), vec(-lf[1], lf[0], lf[2])));
  }
  return out;
}

}  // namespace sim_hotpath

namespace sim_hotpath {

py::tuple imu_readings(Array<double> poses, Array<double> twists, Array<std::int64_t> imu_links,
                       Array<double> vel_prev, Array<double> gravity, double dt) {
  require_shape(poses, {-1, 7}, "poses");
  const py::ssize_t n_links = poses.shape(0);
  require_shape(twists, {n_links, 6}, "twists");
  require_shape(imu_links, {-1}, "imu_links");
  const py::ssize_t n = imu_links.shape(0);
  require_shape(vel_prev, {n, 3}, "vel_prev");
  require_shape(gravity, {3}, "gravity");
  if (!(dt > 0)) throw py::value_error("imu_readings: dt > 0");
  py::array_t<double> acc({n, py::ssize_t{3}}), gyro({n, py::ssize_t{3}}), vel({n, py::ssize_t{3}});
  double* a = acc.mutable_data();
  double* g = gyro.mutable_data();
  double* v = vel.mutable_data();
  const double* grav = gravity.data();
  const double big = std::numeric_limits<double>::max();
  for (py::ssize_t r = 0; r < n; ++r) {
    const std::int64_t link = *imu_links.data(r);
    if (link < 0 || link >= n_links) throw py::index_error("imu_readings: imu link out of range");
    double m[9];
    quat_matrix(poses.data(link, 3), m);
    const double* tw = twists.data(link, 0);
    const double* prev = vel_prev.data(r, 0);
    double d[3], w[3];
    for (int k = 0; k < 3; ++k) {
      v[3 * r + k] = tw[k];
      double change = (tw[k] - prev[k]) / dt;  // as numpy's nan_to_num(nan=0) reads it
      change = std::isnan(change) ? 0.0 : std::isinf(change) ? (change > 0 ? big : -big) : change;
      d[k] = change - grav[k];
      w[k] = tw[3 + k];
    }
    for (int k = 0; k < 3; ++k) {
      a[3 * r + k] = m[k] * d[0] + m[3 + k] * d[1] + m[6 + k] * d[2];
      g[3 * r + k] = (m[k] * w[0] + m[3 + k] * w[1] + m[6 + k] * w[2]) * (180.0 / M_PI);
    }
  }
  return py::make_tuple(acc, gyro, vel);
}

}  // namespace sim_hotpath

namespace sim_hotpath {

py::tuple contact_owners(Array<std::int64_t> links, Array<std::int64_t> link_robot, std::int64_t ball_link) {
  require_shape(links, {-1, 2}, "links");
  require_shape(link_robot, {-1}, "link_robot");
  const py::ssize_t n_links = link_robot.shape(0);
  const std::int64_t* robot_of = link_robot.data();
  auto owner = [&](std::int64_t link) -> std::int64_t {
    if (link < 0) return -1;
    if (link >= n_links) throw py::index_error("contact_owners: link out of range");
    return robot_of[link];
  };
  std::vector<std::int64_t> touchers;
  std::vector<std::pair<std::int64_t, std::int64_t>> pairs;
  const std::int64_t* pair = links.data();
  for (py::ssize_t c = 0; c < links.shape(0); ++c) {
    const std::int64_t a = pair[2 * c], b = pair[2 * c + 1];
    const std::int64_t ra = owner(a), rb = owner(b);
    for (auto [link, other] : {std::pair{a, rb}, std::pair{b, ra}}) {
      if (link == ball_link && other >= 0 && std::find(touchers.begin(), touchers.end(), other) == touchers.end())
        touchers.push_back(other);
    }
    if (ra >= 0 && rb >= 0 && ra != rb) {
      const auto key = ra < rb ? std::pair{ra, rb} : std::pair{rb, ra};
      if (std::find(pairs.begin(), pairs.end(), key) == pairs.end()) pairs.push_back(key);
    }
  }
  py::list t, p;
  for (auto r : touchers) t.append(r);
  for (auto [x, y] : pairs) p.append(py::make_tuple(x, y));
  return py::make_tuple(t, p);
}

}  // namespace sim_hotpath

namespace sim_hotpath {

py::tuple state_health(Array<double> poses, Array<double> twists, Array<double> speed_limit_sq,
                       Array<double> spin_limit_sq, double z_min, double z_max) {
  require_shape(poses, {-1, 7}, "poses");
  const py::ssize_t n = poses.shape(0);
  require_shape(twists, {n, 6}, "twists");
  require_shape(speed_limit_sq, {n}, "speed_limit_sq");
  require_shape(spin_limit_sq, {n}, "spin_limit_sq");
  const double* p = poses.data();
  const double* t = twists.data();
  for (py::ssize_t i = 0; i < 7 * n; ++i)
    if (!std::isfinite(p[i])) return py::make_tuple(1, 0.0);
  for (py::ssize_t i = 0; i < 6 * n; ++i)
    if (!std::isfinite(t[i])) return py::make_tuple(1, 0.0);
  double fastest = 0.0, spinniest = 0.0, farthest = 0.0;
  bool too_fast = false, too_spinning = false, too_far = false;
  const double* speed_limit = speed_limit_sq.data();
  const double* spin_limit = spin_limit_sq.data();
  for (py::ssize_t i = 0; i < n; ++i) {
    const double* v = t + 6 * i;
    const double speed = v[0] * v[0] + v[1] * v[1] + v[2] * v[2];
    const double spin = v[3] * v[3] + v[4] * v[4] + v[5] * v[5];
    fastest = std::max(fastest, speed);
    spinniest = std::max(spinniest, spin);
    too_fast = too_fast || speed > speed_limit[i];
    too_spinning = too_spinning || spin > spin_limit[i];
    const double z = p[7 * i + 2];
    if (z < z_min || z > z_max) too_far = true;
    if (std::abs(z) > std::abs(farthest)) farthest = z;
  }
  if (too_fast) return py::make_tuple(2, std::sqrt(fastest));
  if (too_spinning) return py::make_tuple(3, std::sqrt(spinniest));
  if (too_far) return py::make_tuple(4, farthest);
  return py::make_tuple(0, 0.0);
}

}  // namespace sim_hotpath
