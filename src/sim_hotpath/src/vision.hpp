// The references' camera for every seeing robot at once: view cone, polar coordinates,
// SimSpark's noise, field lines clipped to the cone; results as sim_contracts Vision objects.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include "arrays.hpp"

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace sim_hotpath {

namespace py = pybind11;

// xoshiro256** with Marsaglia's polar method: normal draws that are the same on every
// machine for a seed (std::normal_distribution is not specified bit for bit).
class NormalSource {
 public:
  explicit NormalSource(std::uint64_t seed);
  double next();

 private:
  std::uint64_t next_bits();
  double uniform();  // [0, 1)
  std::array<std::uint64_t, 4> s_{};
  double spare_ = 0.0;
  bool has_spare_ = false;
};

struct Figures {
  double view_half_angle_deg;
  double min_distance;
  double sigma_distance_per_100m;
  double sigma_azimuth_deg;
  double sigma_elevation_deg;
};

class VisionKernel {
 public:
  // names: the landmarks then the ball; landmarks (L, 3); lines (K, 6) ends on the field;
  // shown (D, L + 1): which names each dialect's agents see; polar/seen_player/vision: the
  // sim_contracts classes the results are made of.
  VisionKernel(py::list names, Array<double> landmarks,
               Array<double> lines,
               Array<bool> shown, py::object polar,
               py::object seen_player, py::object vision, Figures figures, bool noise, std::uint64_t seed);

  // The robots that can be seen: [(team, unum, [(part, row)])], rows into `points` of see().
  void set_owners(py::list groups);

  // One Vision per camera. cam_pos (R, 3), cam_rot (R, 3, 3) (columns: the camera's x
  // forward, y left, z up in the world), calib (R, 3) added in the camera frame; noisy[r]:
  // noise on its objects (SimSpark agents); lines[r]: with clipped field lines; dialect[r]:
  // row of `shown`; points (1 + P, 3): the ball, then the parts set_owners named.
  py::list see(Array<double> cam_pos,
               Array<double> cam_rot,
               Array<double> calib,
               Array<bool> noisy,
               Array<bool> lines,
               Array<std::int64_t> dialect,
               Array<double> points);

 private:
  struct Group {
    py::object team, unum;
    std::vector<std::pair<py::object, int>> parts;  // name, row in points
  };
  struct Camera {
    double pos[3], rot[9], calib[3];
    void local(const double* p, double* out) const;  // world point -> camera frame (+ calib)
    void direction(const double* d, double* out) const;  // world vector -> camera frame
  };
  py::object polar_of(double d, double a, double e);
  void polar(const double* local, double* out) const;
  bool in_view(const double* local) const;  // a quick test before the angles; never false for a seen point
  bool visible(const double* pol) const;
  void add_noise(double* pol);
  py::list seen_lines(const Camera& cam);

  std::vector<py::object> names_;
  std::vector<double> landmarks_;  // L * 3
  std::vector<double> lines_;      // K * 6
  std::vector<std::vector<bool>> shown_;
  py::object polar_, seen_player_, vision_;
  PyTypeObject* polar_type_;
  std::vector<Group> groups_;
  int max_row_ = 0;
  Figures fig_;
  double tan2_;  // tan(view half angle)^2
  bool noise_;
  NormalSource normal_;
};

}  // namespace sim_hotpath
