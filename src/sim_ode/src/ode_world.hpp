// A soccer world on ODE, the physics library rcssserver3d steps: SDFormat reads our worlds and
// robots, this module builds them as ODE bodies, geoms and joints and steps them as SimSpark
// does (one dWorldStep per cycle, hinge motors as ODE velocity motors, contact joints mixed
// from both geoms' surfaces).
//
// Why: agents tuned for years on rcssserver3d walk on ODE's contacts (soft ERP/CFM, unbounded
// friction with force-dependent slip, 4 contacts per pair) and ODE's rigid motors; no other
// engine reproduces them (docs/ode.md). The interface is the same array interface as the
// Gazebo module's GzWorld, so one engine node drives both.
#pragma once

#include <Eigen/Core>
#include <Eigen/Geometry>
#include <ode/ode.h>

#include <deque>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "island_threading.hpp"
#include "step_worker.hpp"

namespace sim_ode {

using RowMatrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using Pose7 = Eigen::Matrix<double, 7, 1>;  // x y z qw qx qy qz

// One geom's contact surface as a SimSpark ContactJointHandler holds it. A value whose flag
// is off is not set; where two geoms meet, a value set on both is their mean and a value set
// on one is that one's (rcssserver3d's rule), mu is always the mean.
struct Surface {
  double mu = dInfinity;
  bool soft_erp_on = false, soft_cfm_on = false, slip_on = false, bounce_on = false;
  double soft_erp = 0.0, soft_cfm = 0.0, slip = 0.0, bounce = 0.0, bounce_vel = 0.0;
};

// World-wide settings (SimSpark's figures are the defaults set by the engine node).
struct Settings {
  double erp = 0.2, cfm = 1e-5, surface_layer = 0.001;
  bool auto_disable = true;
  int max_contacts = 4;  // per geom pair
  int pile_models = 3;  // models touching in one island from which it is solved iteratively
  int pile_contacts = 40;  // or contacts between its models beyond which it is
  // every hinge
  double hinge_cfm = 1e-8, stop_cfm = 1e-8, stop_erp = 0.8, fudge = 1e-5, stop_bounce = 1.0;
};

struct ModelLayout {
  std::string name;
  std::vector<std::string> links;   // link names, in the order of the link arrays
  std::vector<std::string> hinges;  // revolute joints, in the order of the hinge arrays
  std::vector<double> lower, upper, effort;
  int first_link = 0;
  int first_hinge = 0;
  bool is_static = false;
};

struct Contacts {
  Eigen::Matrix<int, Eigen::Dynamic, 2, Eigen::RowMajor> links;  // global link index, -1: static
  RowMatrix points;  // (n, 3) world
  RowMatrix forces;  // (n, 3) on the first link, world
};

struct Model;
struct ModelTemplate;

// A step ODE could not take (its error, or bodies left non-finite): the world was rolled back.
struct PhysicsFault : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class OdeWorld {
 public:
  OdeWorld(const std::string& world_sdf, double timestep, const Settings& settings);
  ~OdeWorld();
  OdeWorld(const OdeWorld&) = delete;
  OdeWorld& operator=(const OdeWorld&) = delete;

  void AddModel(const std::string& sdf, bool is_text, const std::string& name, const Pose7& pose);
  void LoadTemplate(const std::string& path);  // read a model file ahead of its first robot
  size_t TemplateCount() const { return templates_.size(); }
  void RemoveModel(const std::string& name);
  std::vector<ModelLayout> Layout() const;
  int LinkCount() const { return static_cast<int>(links_.size()); }
  int HingeCount() const { return static_cast<int>(hinges_.size()); }

  RowMatrix LinkPoses() const;       // (L, 7) link frames, world
  RowMatrix LinkVelocities() const;  // (L, 6) linear (at the link origin), angular; world
  RowMatrix HingeStates() const;     // (H, 2) angle, rate

  // 0 velocity motor (SimSpark), 1 the same (ODE's motor is always bounded by its effort),
  // 2 PD torque kp (q* - q) + kd (dq* - dq) + tau with the motor off.
  void SetHingeModes(const Eigen::VectorXi& modes);
  void SetHingeVelocities(const Eigen::VectorXd& speeds);
  void SetHingePd(const Eigen::VectorXd& q, const Eigen::VectorXd& dq, const Eigen::VectorXd& kp,
                  const Eigen::VectorXd& kd, const Eigen::VectorXd& tau);
  void SetLinkWrench(int link, const Eigen::Vector3d& force, const Eigen::Vector3d& torque);

  // [6 root entries, hinge angles] / [root angular, root linear (world), hinge rates]: the
  // Gazebo module's generalized vectors; setting them poses the links by forward kinematics
  // from the root (the first six position entries are ignored).
  Eigen::VectorXd Positions(const std::string& name) const;
  Eigen::VectorXd Velocities(const std::string& name) const;
  void SetPositions(const std::string& name, const Eigen::VectorXd& q);
  void SetVelocities(const std::string& name, const Eigen::VectorXd& dq);
  void SetRootPose(const std::string& name, const Pose7& pose);
  void SetRootVelocity(const std::string& name, const Eigen::Vector3d& linear, const Eigen::Vector3d& angular);

  // Every geom of a model.
  void SetSurface(const std::string& name, const Surface& surface);
  // The world file's static geoms: planes (the field) and the rest (goals).
  void SetStaticSurfaces(const Surface& planes, const Surface& solids);
  // SimSpark's DragController on every body of a model: F = -linear v, T = -angular w.
  void SetDrag(const std::string& name, double linear, double angular);

  // n steps. An ODE error while stepping, or a body left non-finite, rolls every body back to
  // where it was when Step was called and throws PhysicsFault: the world steps on afterwards.
  void Step(int n);
  // Every body back to where it was when the last Step was called (after a step whose result
  // the caller refuses, e.g. exploding speeds); false when there is nothing saved.
  bool Rollback();
  // Step(n) on the world's step worker: StepStart returns at once, StepFinish waits and throws
  // what Step threw. In between the caller must not touch the world (the Python module's
  // methods wait for the step first: Settle).
  void StepStart(int n);
  void StepFinish();
  void Settle() const;
  bool Stepping() const { return worker_ && worker_->Busy(); }
  double LastStepSeconds() const { return last_step_s_; }  // wall time of the last Step
  // Geom pairs whose collision ODE failed on (e.g. two boxes at one spot, no contact normal):
  // that pair has no contact in that step, everything else steps.
  long CollisionFaults() const { return collision_faults_; }
  const std::string& LastCollisionFault() const { return collision_fault_; }
  Contacts LastContacts() const { return contacts_; }
  double Time() const { return time_; }
  double Timestep() const { return timestep_; }
  long PileSteps() const { return pile_steps_; }  // steps that solved a pile iteratively
  void SetStepThreads(int n);  // islands stepped on n threads (1: the calling thread only)
  int StepThreads() const { return step_threads_; }

  // for the collision callback
  void Collide(dGeomID a, dGeomID b);

 private:
  Model& Find(const std::string& name) const;
  void Reindex();
  void DriveHinges();
  void MarkGeomsMoved();
  void SolveIslands();
  void Steps(int n);
  void Pose(Model& model, const Eigen::Isometry3d& root, const Eigen::VectorXd& angles);
  void Repose(Model& model, const Eigen::Isometry3d& root, const Eigen::VectorXd& angles);
  Eigen::Matrix<double, 6, 1> LinkTwist(const Model& model, int link) const;
  void Move(Model& model, const Eigen::Vector3d& linear, const Eigen::Vector3d& angular, const Eigen::VectorXd& rates);
  Eigen::VectorXd Angles(const Model& model) const;
  Eigen::VectorXd Rates(const Model& model) const;

  double timestep_;
  double time_ = 0.0;
  long pile_steps_ = 0;
  void StepAwake();  // dWorldStep, on the pool only when enough models are awake to share
  int step_threads_ = 1;
  std::unique_ptr<IslandThreads> island_threads_;  // null: one thread
  struct BodyState {
    dBodyID body;
    dReal pos[3], quat[4], linear[3], angular[3];
    bool enabled;
  };
  std::vector<BodyState> saved_;  // every body when the last Step was called
  double saved_time_ = 0.0;
  void SaveBodies();
  void RestoreBodies();
  bool BodiesFinite() const;
  long collision_faults_ = 0;
  std::string collision_fault_;
  Settings settings_;
  dWorldID world_ = nullptr;
  dSpaceID space_ = nullptr;
  dJointGroupID contact_group_ = nullptr;
  std::vector<std::unique_ptr<Model>> models_;
  std::map<std::string, std::shared_ptr<const ModelTemplate>> templates_;  // parsed SDF, by file or text
  double last_step_s_ = 0.0;
  std::unique_ptr<StepWorker> worker_;  // made by the first StepStart
  std::shared_ptr<const ModelTemplate> Template(const std::string& sdf, bool is_text);
  struct LinkRef { Model* model; int link; };
  struct HingeRef { Model* model; int joint; int hinge; };  // joint template index, hinge within the model
  std::vector<LinkRef> links_;
  std::vector<HingeRef> hinges_;
  Eigen::VectorXi mode_;
  Eigen::VectorXd speed_, q_target_, dq_target_, kp_, kd_, tau_;
  std::vector<std::pair<int, Eigen::Matrix<double, 6, 1>>> wrenches_;
  // contact joints of the step being taken, with their feedback
  std::vector<std::pair<int, int>> pending_links_;
  std::deque<dJointFeedback> feedback_;  // stable addresses for ODE
  
  std::vector<Eigen::Vector3d> pending_points_;
  Contacts contacts_;
};

}  // namespace sim_ode
