// See gz_world.hpp: build with gz-physics from SDF, step with gz-physics, read and drive the
// DART skeletons it built in whole arrays.
#include "gz_world.hpp"

#include <chrono>
#include <cstdlib>
#include <sstream>
#include <stdexcept>

#include <dart/collision/CollisionObject.hpp>
#include <dart/collision/CollisionResult.hpp>
#include <dart/constraint/ConstraintSolver.hpp>
#include <dart/constraint/ContactConstraint.hpp>
#include <dart/dynamics/FreeJoint.hpp>
#include <dart/dynamics/ShapeNode.hpp>
#include <ignition/physics/FeatureList.hh>
#include <ignition/physics/GetEntities.hh>
#include <ignition/physics/RemoveEntities.hh>
#include <ignition/physics/RequestEngine.hh>
#include <ignition/physics/dartsim/World.hh>
#include <ignition/physics/sdf/ConstructModel.hh>
#include <ignition/physics/sdf/ConstructWorld.hh>
#include <ignition/plugin/Loader.hh>
#include <sdf/Model.hh>
#include <sdf/Root.hh>
#include <sdf/World.hh>

namespace gp = ignition::physics;

namespace sim_gazebo {
namespace {

using Features = gp::FeatureList<gp::sdf::ConstructSdfWorld, gp::sdf::ConstructSdfModel, gp::GetModelFromWorld,
                                 gp::RemoveModelFromWorld, gp::dartsim::RetrieveWorld>;
using EnginePtr = gp::EnginePtr<gp::FeaturePolicy3d, Features>;
using WorldPtr = gp::WorldPtr<gp::FeaturePolicy3d, Features>;

std::string Describe(const sdf::Errors& errors) {
  std::ostringstream out;
  for (size_t i = 0; i < errors.size() && i < 3; ++i) out << (i ? "; " : "") << errors[i].Message();
  return out.str();
}

Eigen::Isometry3d ToIsometry(const Eigen::Matrix<double, 7, 1>& pose) {
  Eigen::Quaterniond q(pose[3], pose[4], pose[5], pose[6]);
  if (!(q.norm() > 1e-9)) throw std::invalid_argument("pose quaternion is zero");
  q.normalize();
  Eigen::Isometry3d tf = Eigen::Isometry3d::Identity();
  tf.linear() = q.toRotationMatrix();
  tf.translation() = pose.head<3>();
  return tf;
}

}  // namespace

struct GzWorld::Impl {
  ignition::plugin::Loader loader;
  ignition::plugin::PluginPtr plugin;
  EnginePtr engine;
  WorldPtr world;
  dart::simulation::WorldPtr dart;
  std::unordered_map<std::string, std::unique_ptr<sdf::Root>> parsed;
};

GzWorld::GzWorld(const std::string& world_sdf, double timestep) : impl_(new Impl), timestep_(timestep) {
  if (!(timestep > 0 && timestep <= 0.05)) throw std::invalid_argument("timestep must be in (0, 0.05] s");
  const char* override_path = std::getenv("GZ_DARTSIM_PLUGIN");
  const std::string plugin_path = override_path ? override_path : DARTSIM_PLUGIN;
  if (impl_->loader.LoadLib(plugin_path).empty())
    throw std::runtime_error("cannot load the gz-physics dartsim plugin " + plugin_path);
  impl_->plugin = impl_->loader.Instantiate("ignition::physics::dartsim::Plugin");
  impl_->engine = gp::RequestEngine3d<Features>::From(impl_->plugin);
  if (!impl_->engine) throw std::runtime_error("the dartsim plugin lacks a feature this engine needs");
  sdf::Root root;
  const sdf::Errors errors = root.Load(world_sdf);
  if (!errors.empty()) throw std::invalid_argument(world_sdf + ": " + Describe(errors));
  if (root.WorldCount() == 0) throw std::invalid_argument(world_sdf + ": no <world>");
  impl_->world = impl_->engine->ConstructWorld(*root.WorldByIndex(0));
  if (!impl_->world) throw std::runtime_error(world_sdf + ": gz-physics could not build the world");
  impl_->dart = impl_->world->GetDartsimWorld();
  impl_->dart->setTimeStep(timestep_);
  Reindex();
}

GzWorld::~GzWorld() = default;

dart::dynamics::SkeletonPtr GzWorld::Skeleton(const std::string& name) const {
  auto skeleton = impl_->dart->getSkeleton(name);
  if (!skeleton) throw std::out_of_range("no model " + name);
  return skeleton;
}

void GzWorld::AddModel(const std::string& sdf, bool is_text, const std::string& name,
                       const Eigen::Matrix<double, 7, 1>& pose) {
  if (impl_->dart->getSkeleton(name)) throw std::invalid_argument("model " + name + " exists");
  const Eigen::Isometry3d tf = ToIsometry(pose);
  // Parsed once per file or text: a team joining reads the robot file once, not eleven times.
  auto& cached = impl_->parsed[(is_text ? "text:" : "file:") + sdf];
  if (!cached) {
    auto root = std::make_unique<sdf::Root>();
    const sdf::Errors errors = is_text ? root->LoadSdfString(sdf) : root->Load(sdf);
    if (!errors.empty() || root->Model() == nullptr) {
      impl_->parsed.erase((is_text ? "text:" : "file:") + sdf);
      if (!errors.empty())
        throw std::invalid_argument((is_text ? std::string("model SDF") : sdf) + ": " + Describe(errors));
      throw std::invalid_argument("the SDF has no <model>");
    }
    cached = std::move(root);
  }
  sdf::Model model = *cached->Model();
  model.SetName(name);
  const Eigen::Quaterniond q(tf.linear());
  model.SetRawPose(ignition::math::Pose3d(tf.translation().x(), tf.translation().y(), tf.translation().z(),
                                          q.w(), q.x(), q.y(), q.z()));
  if (!impl_->world->ConstructModel(model)) throw std::runtime_error("gz-physics could not build model " + name);
  Reindex();
}

void GzWorld::RemoveModel(const std::string& name) {
  if (!impl_->world->RemoveModel(name)) throw std::out_of_range("no model " + name);
  Reindex();
}

void GzWorld::Reindex() {
  contacts_valid_ = false;
  // Keep every hinge's drive across the reindex (by joint), new hinges hold still.
  std::unordered_map<const dart::dynamics::Joint*, int> old_index;
  for (size_t i = 0; i < hinges_.size(); ++i) old_index[hinges_[i]] = static_cast<int>(i);
  const Eigen::VectorXi mode = mode_;
  const Eigen::VectorXd speed = speed_, qt = q_target_, dqt = dq_target_, kp = kp_, kd = kd_, tau = tau_;
  layouts_.clear();
  bodies_.clear();
  hinges_.clear();
  body_index_.clear();
  for (size_t s = 0; s < impl_->dart->getNumSkeletons(); ++s) {
    const auto skeleton = impl_->dart->getSkeleton(s);
    ModelLayout layout;
    layout.name = skeleton->getName();
    layout.first_link = static_cast<int>(bodies_.size());
    layout.first_hinge = static_cast<int>(hinges_.size());
    layout.is_static = !skeleton->isMobile();
    for (size_t b = 0; b < skeleton->getNumBodyNodes(); ++b) {
      auto* body = skeleton->getBodyNode(b);
      body_index_[body] = static_cast<int>(bodies_.size());
      bodies_.push_back(body);
      layout.links.push_back(body->getName());
    }
    for (size_t j = 0; j < skeleton->getNumJoints(); ++j) {
      auto* joint = skeleton->getJoint(j);
      if (joint->getNumDofs() != 1) continue;
      hinges_.push_back(joint);
      layout.hinges.push_back(joint->getName());
      layout.lower.push_back(joint->getPositionLowerLimit(0));
      layout.upper.push_back(joint->getPositionUpperLimit(0));
      layout.effort.push_back(joint->getForceUpperLimit(0));
    }
    layouts_.push_back(std::move(layout));
  }
  const int n = static_cast<int>(hinges_.size());
  mode_ = Eigen::VectorXi::Zero(n);
  speed_ = q_target_ = dq_target_ = kp_ = kd_ = tau_ = Eigen::VectorXd::Zero(n);
  lower_.resize(n);
  upper_.resize(n);
  effort_.resize(n);
  damping_.resize(n);
  inertia_ = Eigen::VectorXd::Zero(n);
  saturated_ = Eigen::VectorXi::Zero(n);
  torque_ = Eigen::VectorXd::Zero(n);
  // Joints of removed models leave the map (a new joint may reuse a freed address).
  std::unordered_map<const dart::dynamics::Joint*, double> file_damping;
  for (int i = 0; i < n; ++i) {
    auto* joint = hinges_[i];
    lower_[i] = joint->getPositionLowerLimit(0);
    upper_[i] = joint->getPositionUpperLimit(0);
    effort_[i] = joint->getForceUpperLimit(0);
    auto damping = file_damping_.find(joint);
    damping_[i] = damping != file_damping_.end() ? damping->second : joint->getDampingCoefficient(0);
    file_damping[joint] = damping_[i];
    auto it = old_index.find(joint);
    if (it == old_index.end()) continue;
    const int k = it->second;
    mode_[i] = mode[k];
    speed_[i] = speed[k];
    q_target_[i] = qt[k];
    dq_target_[i] = dqt[k];
    kp_[i] = kp[k];
    kd_[i] = kd[k];
    tau_[i] = tau[k];
  }
  file_damping_ = std::move(file_damping);
  wrenches_.clear();
}

RowMatrix GzWorld::LinkPoses() const {
  RowMatrix out(bodies_.size(), 7);
  for (size_t i = 0; i < bodies_.size(); ++i) {
    const Eigen::Isometry3d& tf = bodies_[i]->getWorldTransform();
    const Eigen::Quaterniond q(tf.linear());
    out.row(i) << tf.translation().x(), tf.translation().y(), tf.translation().z(), q.w(), q.x(), q.y(), q.z();
  }
  return out;
}

RowMatrix GzWorld::LinkVelocities() const {
  RowMatrix out(bodies_.size(), 6);
  for (size_t i = 0; i < bodies_.size(); ++i) {
    out.row(i).head<3>() = bodies_[i]->getLinearVelocity().transpose();
    out.row(i).tail<3>() = bodies_[i]->getAngularVelocity().transpose();
  }
  return out;
}

RowMatrix GzWorld::HingeStates() const {
  RowMatrix out(hinges_.size(), 2);
  for (size_t i = 0; i < hinges_.size(); ++i) out.row(i) << hinges_[i]->getPosition(0), hinges_[i]->getVelocity(0);
  return out;
}

namespace {
void CheckLength(const Eigen::Ref<const Eigen::VectorXd>& v, size_t n, const char* what) {
  if (static_cast<size_t>(v.size()) != n) throw std::invalid_argument(std::string(what) + ": one value per hinge");
  if (!v.allFinite()) throw std::invalid_argument(std::string(what) + ": values must be finite");
}
}  // namespace

void GzWorld::SetHingeModes(const Eigen::VectorXi& modes) {
  if (static_cast<size_t>(modes.size()) != hinges_.size()) throw std::invalid_argument("modes: one per hinge");
  for (int i = 0; i < modes.size(); ++i)
    if (modes[i] < 0 || modes[i] > 2) throw std::invalid_argument("modes: 0 velocity, 1 servo, 2 pd");
  mode_ = modes;
}

void GzWorld::SetHingeVelocities(const Eigen::VectorXd& speeds) {
  CheckLength(speeds, hinges_.size(), "speeds");
  speed_ = speeds;
}

void GzWorld::SetHingePd(const Eigen::VectorXd& q, const Eigen::VectorXd& dq, const Eigen::VectorXd& kp,
                         const Eigen::VectorXd& kd, const Eigen::VectorXd& tau) {
  for (const auto* v : {&q, &dq, &kp, &kd, &tau}) CheckLength(*v, hinges_.size(), "pd");
  q_target_ = q;
  dq_target_ = dq;
  kp_ = kp;
  kd_ = kd;
  tau_ = tau;
}

void GzWorld::SetLinkWrench(int link, const Eigen::Vector3d& force, const Eigen::Vector3d& torque) {
  if (link < 0 || link >= static_cast<int>(bodies_.size())) throw std::out_of_range("link index");
  if (!force.allFinite() || !torque.allFinite()) throw std::invalid_argument("wrench must be finite");
  Eigen::Matrix<double, 6, 1> w;
  w << force, torque;
  wrenches_.emplace_back(link, w);
}

void GzWorld::MeasureInertia() {
  // The joint-space inertia's diagonal (what a hinge turns when it alone moves), for the PD
  // hinges, once per Step: the explicit PD force's stability budget (DriveHinges).
  for (size_t i = 0; i < hinges_.size(); ++i) {
    if (mode_[i] != static_cast<int>(HingeMode::kPd)) continue;
    const auto skeleton = hinges_[i]->getSkeleton();
    const size_t dof = hinges_[i]->getIndexInSkeleton(0);
    inertia_[i] = skeleton->getMassMatrix()(dof, dof);
  }
}

void GzWorld::DriveHinges() {
  using dart::dynamics::Joint;
  const double dt = timestep_;
  for (size_t i = 0; i < hinges_.size(); ++i) {
    Joint* joint = hinges_[i];
    const int mode = mode_[i];
    const double q = joint->getPosition(0);
    const double dq = joint->getVelocity(0);
    if (mode == static_cast<int>(HingeMode::kPd)) {
      // rcssservermj's motor as MuJoCo steps it: the PD force from this step's state, bounded by
      // the joint's effort, explicit. DART's implicit joint spring would not do: its force is
      // found as if the joint's child moved freely, so a foot held by the ground passed no
      // ankle torque and a T1 held stiffly at zero fell over its ankles, whatever the gain.
      // Gains too high for an explicit force on what the joint turns (a Nao's head at 0.02 s,
      // kp 1000 on a T1) hand their excess to the implicit spring and damper, which are stable.
      if (joint->getActuatorType() != Joint::FORCE) joint->setActuatorType(Joint::FORCE);
      const double limit = effort_[i] > 0 ? effort_[i] : 1e9;
      const double full = kp_[i] * (q_target_[i] - q) + kd_[i] * (dq_target_[i] - dq) + tau_[i];
      const double load = inertia_[i] > 0 ? (kp_[i] * dt * dt + 2 * kd_[i] * dt) / inertia_[i] : 0.0;
      // At the effort bound the force is a constant torque, stable at any gain: all explicit.
      const double share = load > kStableLoad && std::abs(full) < limit ? kStableLoad / load : 1.0;
      const double force = share * (full - tau_[i]) + (1 - share) * kd_[i] * dq_target_[i] + tau_[i];
      const double command = std::clamp(force, -limit, limit);
      joint->setCommand(0, command);
      // The implicit spring's force is bounded by what the effort leaves (DART bounds only
      // the command): its stiffness shrinks so that at this step's error it pulls no harder.
      const double error = std::abs(q_target_[i] - q);
      const double left = std::max(0.0, limit - std::abs(command));
      const double spring = std::min((1 - share) * kp_[i], error > 0 ? left / error : 1e18);
      if (joint->getSpringStiffness(0) != spring) joint->setSpringStiffness(0, spring);
      if (spring > 0) joint->setRestPosition(0, q_target_[i]);
      const double damping = damping_[i] + (1 - share) * kd_[i];
      if (joint->getDampingCoefficient(0) != damping) joint->setDampingCoefficient(0, damping);
      continue;
    }
    if (joint->getDampingCoefficient(0) != damping_[i]) joint->setDampingCoefficient(0, damping_[i]);
    if (joint->getSpringStiffness(0) != 0.0) joint->setSpringStiffness(0, 0.0);
    // The speed is cut so that the joint stops exactly at its range, as the MuJoCo engine does.
    double v = speed_[i];
    if (lower_[i] < upper_[i]) v = std::clamp(v, (lower_[i] - q) / dt, (upper_[i] - q) / dt);
    if (mode == static_cast<int>(HingeMode::kServo) || saturated_[i]) {  // saturated_: see Step
      if (joint->getActuatorType() != Joint::SERVO) {
        joint->setActuatorType(Joint::SERVO);
        joint->setForceLowerLimit(0, -effort_[i]);
        joint->setForceUpperLimit(0, effort_[i]);
      }
    } else if (joint->getActuatorType() != Joint::VELOCITY) {
      joint->setActuatorType(Joint::VELOCITY);
    }
    joint->setCommand(0, v);
  }
}

void GzWorld::SetFriction(const std::string& name, double mu) {
  if (!(mu >= 0 && mu <= 1e6)) throw std::invalid_argument("friction coefficient: 0..1e6");
  auto skeleton = Skeleton(name);
  for (size_t b = 0; b < skeleton->getNumBodyNodes(); ++b) {
    for (auto* shape : skeleton->getBodyNode(b)->getShapeNodesWith<dart::dynamics::DynamicsAspect>()) {
      shape->getDynamicsAspect()->setPrimaryFrictionCoeff(mu);
      shape->getDynamicsAspect()->setSecondaryFrictionCoeff(mu);
    }
  }
}

void GzWorld::SetSlipCompliance(const std::string& name, double slip) {
  if (!(slip >= 0 && slip < 1)) throw std::invalid_argument("slip compliance: 0..1 (m/s)/N");
  auto skeleton = Skeleton(name);
  for (size_t b = 0; b < skeleton->getNumBodyNodes(); ++b) {
    for (auto* shape : skeleton->getBodyNode(b)->getShapeNodesWith<dart::dynamics::DynamicsAspect>()) {
      shape->getDynamicsAspect()->setPrimarySlipCompliance(slip);
      shape->getDynamicsAspect()->setSecondarySlipCompliance(slip);
    }
  }
}

void GzWorld::SetContactModel(double erp, double cfm, double allowance, double max_erv) {
  if (!(erp >= 0 && erp <= 1)) throw std::invalid_argument("contact erp: 0..1");
  if (!(cfm >= 0 && cfm <= 100)) throw std::invalid_argument("contact cfm: 0..100");
  if (!(allowance >= 0 && allowance <= 0.05)) throw std::invalid_argument("contact allowance: 0..0.05 m");
  if (!(max_erv > 0 && max_erv <= 100)) throw std::invalid_argument("contact max_erv: (0, 100] m/s");
  using dart::constraint::ContactConstraint;
  ContactConstraint::setErrorReductionParameter(erp);
  ContactConstraint::setConstraintForceMixing(cfm);
  ContactConstraint::setErrorAllowance(allowance);
  ContactConstraint::setMaxErrorReductionVelocity(max_erv);
}

void GzWorld::ApplyWrenches() {
  for (const auto& [link, w] : wrenches_) {
    bodies_[link]->addExtForce(w.head<3>(), Eigen::Vector3d::Zero(), false, true);
    bodies_[link]->addExtTorque(w.tail<3>(), false);
  }
}

void GzWorld::MeasureMotorTorques(const std::vector<std::pair<Eigen::VectorXd, Eigen::VectorXd>>& before) {
  // DART's velocity actuator reports only the torque of its unconstrained motion (a robot on
  // its feet falls freely there, so a knee holding it reports none): the torque each motor
  // exerted in the step is found by inverse dynamics of the velocity change the step made,
  // with the contact forces it solved and the wrenches applied. Taken at the step's end state
  // (the start's would cost two more kinematics passes per robot; the error is O(dt)).
  const double dt = timestep_;
  for (size_t s = 0; s < impl_->dart->getNumSkeletons(); ++s) {
    const auto skeleton = impl_->dart->getSkeleton(s);
    skeleton->clearExternalForces();
    if (skeleton->isMobile() && skeleton->getNumDofs() > 0)
      skeleton->setAccelerations((skeleton->getVelocities() - before[s].second) / dt);
  }
  const auto& contacts = impl_->dart->getLastCollisionResult();
  for (size_t c = 0; c < contacts.getNumContacts(); ++c) {
    const auto& contact = contacts.getContact(c);
    double sign = 1.0;  // the force is on the first object's body
    for (const auto* object : {contact.collisionObject1, contact.collisionObject2}) {
      const auto* shape = dynamic_cast<const dart::dynamics::ShapeNode*>(object->getShapeFrame());
      auto it = shape != nullptr ? body_index_.find(shape->getBodyNodePtr().get()) : body_index_.end();
      if (it != body_index_.end() && bodies_[it->second]->getSkeleton()->isMobile())
        bodies_[it->second]->addExtForce(sign * contact.force, contact.point, false, false);
      sign = -1.0;
    }
  }
  ApplyWrenches();
  for (size_t s = 0; s < impl_->dart->getNumSkeletons(); ++s) {
    const auto skeleton = impl_->dart->getSkeleton(s);
    if (skeleton->isMobile() && skeleton->getNumDofs() > 0) skeleton->computeInverseDynamics(true, true, false);
  }
  for (size_t i = 0; i < hinges_.size(); ++i) torque_[i] = hinges_[i]->getForce(0);
}

void GzWorld::Step(int n) {
  if (n < 1 || n > 1000) throw std::invalid_argument("steps: 1..1000");
  // DART steps the world itself (gz-physics' ForwardStep is this call with the commands and
  // forces cleared after it): the velocity motors' torques are measured before they are.
  impl_->dart->setTimeStep(timestep_);
  MeasureInertia();
  bool velocity_motors = false;
  for (size_t i = 0; i < hinges_.size(); ++i)
    velocity_motors = velocity_motors || (mode_[i] == static_cast<int>(HingeMode::kVelocity) && effort_[i] > 0);
  std::vector<std::pair<Eigen::VectorXd, Eigen::VectorXd>> saved;
  for (int k = 0; k < n; ++k) {
    saturated_.setZero();
    saved.clear();
    if (velocity_motors) {
      for (size_t s = 0; s < impl_->dart->getNumSkeletons(); ++s) {
        const auto skeleton = impl_->dart->getSkeleton(s);
        saved.emplace_back(skeleton->getPositions(), skeleton->getVelocities());
      }
    }
    const double start = impl_->dart->getTime();
    for (int pass = 0;; ++pass) {
      DriveHinges();
      ApplyWrenches();
      impl_->dart->step(false);
      // rcssserver3d's hinge motor is ODE's: a speed reached within the step unless that takes
      // more than the motor's force, solved with the contacts. DART's velocity actuator has no
      // bound, so a motor that took more than its effort becomes DART's servo (the speed as a
      // constraint bounded by the effort, solved with the contacts: ODE's motor) and the step
      // is taken again from the same state; kMotorPasses bounds the rounds. Only those motors:
      // every motor a servo spun a toe hinge up at a foot's landing where ODE's holds.
      bool again = false;
      if (velocity_motors && pass + 1 < kMotorPasses) {
        MeasureMotorTorques(saved);
        for (size_t i = 0; i < hinges_.size(); ++i) {
          if (mode_[i] != static_cast<int>(HingeMode::kVelocity) || saturated_[i] || !(effort_[i] > 0)) continue;
          if (std::abs(torque_[i]) > effort_[i]) {
            saturated_[i] = 1;
            again = true;
          }
        }
      }
      for (size_t s = 0; s < impl_->dart->getNumSkeletons(); ++s) {
        const auto skeleton = impl_->dart->getSkeleton(s);
        skeleton->clearInternalForces();
        skeleton->clearExternalForces();
        skeleton->resetCommands();
      }
      if (!again) {
        motors_at_effort_ = static_cast<int>(saturated_.count());
        break;
      }
      impl_->dart->setTime(start);
      for (size_t s = 0; s < impl_->dart->getNumSkeletons(); ++s) {
        const auto skeleton = impl_->dart->getSkeleton(s);
        skeleton->setPositions(saved[s].first);
        skeleton->setVelocities(saved[s].second);
      }
    }
    time_ += timestep_;
  }
  contacts_valid_ = true;
  wrenches_.clear();
}

Contacts GzWorld::LastContacts() const {
  const auto& result = impl_->dart->getLastCollisionResult();
  const size_t n = contacts_valid_ ? result.getNumContacts() : 0;
  Contacts out;
  out.links.resize(n, 2);
  out.points.resize(n, 3);
  out.forces.resize(n, 3);
  for (size_t i = 0; i < n; ++i) {
    const auto& contact = result.getContact(i);
    int k = 0;
    for (const auto* object : {contact.collisionObject1, contact.collisionObject2}) {
      int index = -1;
      const auto* shape = dynamic_cast<const dart::dynamics::ShapeNode*>(object->getShapeFrame());
      if (shape != nullptr) {
        auto it = body_index_.find(shape->getBodyNodePtr().get());
        if (it != body_index_.end()) index = it->second;
      }
      out.links(i, k++) = index;
    }
    out.points.row(i) = contact.point.transpose();
    out.forces.row(i) = contact.force.transpose();
  }
  return out;
}

Eigen::VectorXd GzWorld::Positions(const std::string& name) const { return Skeleton(name)->getPositions(); }
Eigen::VectorXd GzWorld::Velocities(const std::string& name) const { return Skeleton(name)->getVelocities(); }

void GzWorld::SetPositions(const std::string& name, const Eigen::VectorXd& q) {
  auto skeleton = Skeleton(name);
  if (static_cast<size_t>(q.size()) != skeleton->getNumDofs() || !q.allFinite())
    throw std::invalid_argument("positions: one finite value per degree of freedom");
  skeleton->setPositions(q);
}

void GzWorld::SetVelocities(const std::string& name, const Eigen::VectorXd& dq) {
  auto skeleton = Skeleton(name);
  if (static_cast<size_t>(dq.size()) != skeleton->getNumDofs() || !dq.allFinite())
    throw std::invalid_argument("velocities: one finite value per degree of freedom");
  skeleton->setVelocities(dq);
}

void GzWorld::SetRootPose(const std::string& name, const Eigen::Matrix<double, 7, 1>& pose) {
  if (!pose.allFinite()) throw std::invalid_argument("pose must be finite");
  auto* root = dynamic_cast<dart::dynamics::FreeJoint*>(Skeleton(name)->getRootJoint());
  if (root == nullptr) throw std::invalid_argument("model " + name + " is not free to move");
  root->setTransform(ToIsometry(pose), dart::dynamics::Frame::World());
}

void GzWorld::SetRootVelocity(const std::string& name, const Eigen::Vector3d& linear, const Eigen::Vector3d& angular) {
  if (!linear.allFinite() || !angular.allFinite()) throw std::invalid_argument("velocity must be finite");
  auto* root = dynamic_cast<dart::dynamics::FreeJoint*>(Skeleton(name)->getRootJoint());
  if (root == nullptr) throw std::invalid_argument("model " + name + " is not free to move");
  root->setLinearVelocity(linear, dart::dynamics::Frame::World(), dart::dynamics::Frame::World());
  root->setAngularVelocity(angular, dart::dynamics::Frame::World(), dart::dynamics::Frame::World());
}

}  // namespace sim_gazebo
