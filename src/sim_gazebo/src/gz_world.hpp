// A soccer world on Gazebo's physics: SDFormat reads the world and the robots, Ignition
// Physics' SDF construction features build them on the DART plugin, and the engine node
// (sim_master's GazeboEngine) drives every robot through whole arrays per call.
//
// Why DART directly beside gz-physics: gz-physics builds, removes and steps the world; its
// per-entity API would cost one call per joint and per link every cycle, so the arrays are
// read from the DART skeletons the plugin built (gz-physics' RetrieveWorld feature).
#pragma once

#include <Eigen/Core>
#include <dart/dynamics/BodyNode.hpp>
#include <dart/dynamics/Joint.hpp>
#include <dart/dynamics/Skeleton.hpp>
#include <dart/simulation/World.hpp>

#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace sim_gazebo {

// How a hinge is driven (set per hinge by the engine node).
enum class HingeMode : int {
  kVelocity = 0,  // SimSpark's hinge motor: the commanded speed, reached within the step
                  // unless that takes more than the joint's effort (then as kServo, see Step)
  kServo = 1,     // the same with the joint's effort as bound (DART's servo constraint)
  kPd = 2,        // rcsssmj's PD motor: kp (q* - q) + kd (dq* - dq) + tau each step, bounded by the effort
};

using RowMatrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

struct ModelLayout {
  std::string name;
  std::vector<std::string> links;   // link names, in the order of the link arrays
  std::vector<std::string> hinges;  // one-axis joints, in the order of the hinge arrays
  std::vector<double> lower, upper, effort;  // per hinge
  int first_link = 0;
  int first_hinge = 0;
  bool is_static = false;
};

struct Contacts {
  Eigen::Matrix<int, Eigen::Dynamic, 2, Eigen::RowMajor> links;  // global link index, -1: no model link
  RowMatrix points;  // (n, 3) world
  RowMatrix forces;  // (n, 3) on the first link, world
};

class GzWorld {
 public:
  // world_sdf: the world file; timestep: seconds per DART step.
  GzWorld(const std::string& world_sdf, double timestep);
  ~GzWorld();

  // Builds a model from an SDF file (or SDF text), renamed and placed at x y z qw qx qy qz.
  void AddModel(const std::string& sdf, bool is_text, const std::string& name,
                const Eigen::Matrix<double, 7, 1>& pose);
  void RemoveModel(const std::string& name);
  std::vector<ModelLayout> Layout() const { return layouts_; }
  int LinkCount() const { return static_cast<int>(bodies_.size()); }
  int HingeCount() const { return static_cast<int>(hinges_.size()); }

  // (L, 7) x y z qw qx qy qz and (L, 6) linear, angular velocity of every link, world frame.
  RowMatrix LinkPoses() const;
  RowMatrix LinkVelocities() const;
  // (H, 2) angle rad and speed rad/s of every hinge.
  RowMatrix HingeStates() const;

  // Per hinge: mode, commanded speed, PD gains and targets (arrays of HingeCount()).
  void SetHingeModes(const Eigen::VectorXi& modes);
  void SetHingeVelocities(const Eigen::VectorXd& speeds);
  void SetHingePd(const Eigen::VectorXd& q, const Eigen::VectorXd& dq, const Eigen::VectorXd& kp,
                  const Eigen::VectorXd& kd, const Eigen::VectorXd& tau);
  // A force and torque (world frame) on a link's centre of mass, held for the next Step().
  void SetLinkWrench(int link, const Eigen::Vector3d& force, const Eigen::Vector3d& torque);

  // A free model's generalized state (root pose as 6 DART coordinates first) and setting it.
  Eigen::VectorXd Positions(const std::string& name) const;
  Eigen::VectorXd Velocities(const std::string& name) const;
  void SetPositions(const std::string& name, const Eigen::VectorXd& q);
  void SetVelocities(const std::string& name, const Eigen::VectorXd& dq);
  // Places a model's root link at x y z qw qx qy qz (joints unchanged) and sets its root twist.
  void SetRootPose(const std::string& name, const Eigen::Matrix<double, 7, 1>& pose);
  void SetRootVelocity(const std::string& name, const Eigen::Vector3d& linear, const Eigen::Vector3d& angular);

  // Coulomb friction coefficient of every shape of a model (DART takes the smaller of two
  // touching shapes' coefficients and caps it at 100).
  void SetFriction(const std::string& name, double mu);
  // Force-dependent slip (m/s per N) of every shape of a model, along both friction directions.
  void SetSlipCompliance(const std::string& name, double slip);

  // DART's contact model, process-wide (its ContactConstraint keeps these in class statics):
  // error reduction per step, constraint force mixing (relative: the diagonal grows by this
  // fraction), penetration allowed without correction (m), largest correcting speed (m/s).
  static void SetContactModel(double erp, double cfm, double allowance, double max_erv);

  // n DART steps through gz-physics, the motors driven before each.
  void Step(int n);
  Contacts LastContacts() const;
  double Time() const { return time_; }
  // Velocity motors found over their effort in the last Step (servos in its final pass).
  int MotorsAtEffort() const { return motors_at_effort_; }
  double Timestep() const { return timestep_; }

 private:
  struct Impl;
  void Reindex();
  void MeasureInertia();
  void DriveHinges();
  void ApplyWrenches();
  void MeasureMotorTorques(const std::vector<std::pair<Eigen::VectorXd, Eigen::VectorXd>>& before);
  dart::dynamics::SkeletonPtr Skeleton(const std::string& name) const;

  std::unique_ptr<Impl> impl_;
  double timestep_;
  double time_ = 0.0;
  std::vector<ModelLayout> layouts_;
  std::vector<dart::dynamics::BodyNode*> bodies_;
  std::vector<dart::dynamics::Joint*> hinges_;
  std::unordered_map<const dart::dynamics::BodyNode*, int> body_index_;
  Eigen::VectorXi mode_;
  Eigen::VectorXd speed_, q_target_, dq_target_, kp_, kd_, tau_, lower_, upper_, effort_;
  // Per hinge: the file's passive joint damping (DART's implicit damper), kept in every mode,
  // and for PD hinges the joint-space inertia (the mass matrix's diagonal) at the Step's start.
  Eigen::VectorXd damping_, inertia_;
  std::unordered_map<const dart::dynamics::Joint*, double> file_damping_;
  // The largest (kp dt^2 + 2 kd dt) / inertia given to an explicit PD force: its step is
  // stable below 4 on that inertia; half keeps a margin for a lighter effective inertia.
  static constexpr double kStableLoad = 2.0;
  // Per hinge, this step: a velocity motor found over its effort (1: DART's servo, bounded by
  // the effort) or not (0: DART's velocity actuator), and the torque it exerted in the last
  // pass; how many times a step may be taken (the first and two more).
  Eigen::VectorXi saturated_;
  Eigen::VectorXd torque_;
  int motors_at_effort_ = 0;
  static constexpr int kMotorPasses = 3;
  std::vector<std::pair<int, Eigen::Matrix<double, 6, 1>>> wrenches_;
  // The last step's collision result points at the collision objects of that step: after a
  // model is added or removed it may hold freed ones, so contacts wait for the next step.
  bool contacts_valid_ = false;
};

}  // namespace sim_gazebo
