// OdeWorld: SDF models read by SDFormat 12, built and stepped as SimSpark builds and steps
// its scene on ODE (see ode_world.hpp).
#include "ode_world.hpp"

#include <chrono>

#include <sdf/Box.hh>
#include <sdf/Capsule.hh>
#include <sdf/Collision.hh>
#include <sdf/Cylinder.hh>
#include <sdf/Geometry.hh>
#include <sdf/Joint.hh>
#include <sdf/JointAxis.hh>
#include <sdf/Link.hh>
#include <sdf/Model.hh>
#include <sdf/Plane.hh>
#include <sdf/Root.hh>
#include <sdf/Sphere.hh>
#include <sdf/World.hh>

#include <algorithm>
#include <cmath>
#include <functional>
#include <cstdarg>
#include <cstdio>
#include <mutex>
#include <sstream>
#include <stdexcept>

namespace sim_ode {

enum class Shape { kBox, kSphere, kCapsule, kCylinder, kPlane };

struct GeomTemplate {
  Shape shape;
  Eigen::Vector3d size;  // box: lengths; sphere: r; capsule/cylinder: r, length; plane: normal
  Eigen::Isometry3d pose;  // in its link's frame
};

struct LinkTemplate {
  std::string name;
  Eigen::Isometry3d pose;  // in the model frame, every joint at 0
  double mass = 1.0;
  Eigen::Vector3d com = Eigen::Vector3d::Zero();  // in the link frame
  Eigen::Matrix3d inertia = Eigen::Matrix3d::Identity();  // about the com, link axes
  std::vector<GeomTemplate> geoms;
};

struct JointTemplate {
  std::string name;
  bool hinge = true;  // else fixed
  int parent = -1, child = -1;  // link indices, -1: the world
  Eigen::Vector3d anchor, axis;  // model frame, every joint at 0
  double lower = -dInfinity, upper = dInfinity, effort = 0.0;
};

struct ModelTemplate {
  bool is_static = false;
  Eigen::Isometry3d pose = Eigen::Isometry3d::Identity();  // in the world (world file models)
  std::vector<LinkTemplate> links;
  std::vector<JointTemplate> joints;  // parents before children
  int root = 0;
};

// What a geom's user data points at: who owns it, for the collision filter and contacts.
struct GeomInfo {
  Model* model;
  int link;  // its link within its model, -1: static (global index: model->first_link + link)
  Surface surface;
};

struct Model {
  std::string name;
  std::shared_ptr<const ModelTemplate> tmpl;
  dSpaceID space = nullptr;  // robots: their own space, no collisions inside it
  std::vector<dBodyID> bodies;  // per link
  std::vector<dGeomID> geoms;
  std::vector<std::unique_ptr<GeomInfo>> infos;
  std::vector<dJointID> joints;  // per joint template
  std::vector<int> hinge_joints;  // joint template index of each hinge, in hinge order
  std::vector<char> pd;  // per hinge: its stops hold a PD target
  int first_link = 0, first_hinge = 0;
  double drag_linear = 0.0, drag_angular = 0.0;
};

namespace {

std::once_flag ode_init;

// ODE exits the process after its error and debug handlers return: ours throw instead, so a
// fault becomes a Python exception. Its messages (e.g. the LCP solver giving up on a row,
// which it recovers from) are not worth a line per step.
[[noreturn]] void Throw(int num, const char* msg, va_list ap) {
  char text[512];
  vsnprintf(text, sizeof(text), msg, ap);
  throw std::runtime_error("ODE error " + std::to_string(num) + ": " + text);
}
void Quiet(int, const char*, va_list) {}

std::string Describe(const sdf::Errors& errors) {
  std::ostringstream out;
  for (size_t i = 0; i < errors.size() && i < 3; ++i) out << (i ? "; " : "") << errors[i].Message();
  return out.str();
}

Eigen::Isometry3d FromIgn(const ignition::math::Pose3d& p) {
  Eigen::Isometry3d tf = Eigen::Isometry3d::Identity();
  tf.translation() = Eigen::Vector3d(p.Pos().X(), p.Pos().Y(), p.Pos().Z());
  tf.linear() = Eigen::Quaterniond(p.Rot().W(), p.Rot().X(), p.Rot().Y(), p.Rot().Z()).toRotationMatrix();
  return tf;
}

Eigen::Isometry3d ToIsometry(const Pose7& pose) {
  Eigen::Quaterniond q(pose[3], pose[4], pose[5], pose[6]);
  if (!pose.allFinite()) throw std::invalid_argument("pose must be finite");
  if (!(q.norm() > 1e-9)) throw std::invalid_argument("pose quaternion is zero");
  q.normalize();
  Eigen::Isometry3d tf = Eigen::Isometry3d::Identity();
  tf.linear() = q.toRotationMatrix();
  tf.translation() = pose.head<3>();
  return tf;
}

template <typename T>
void Check(const sdf::Errors& errors, const T& what) {
  if (!errors.empty()) throw std::invalid_argument(std::string(what) + ": " + Describe(errors));
}

// An SDF model as links, geoms and joints in its own frame.
std::shared_ptr<ModelTemplate> ReadModel(const sdf::Model& model) {
  auto t = std::make_shared<ModelTemplate>();
  t->is_static = model.Static();
  std::map<std::string, int> index;
  for (uint64_t i = 0; i < model.LinkCount(); ++i) {
    const sdf::Link* link = model.LinkByIndex(i);
    LinkTemplate lt;
    lt.name = link->Name();
    ignition::math::Pose3d pose;
    Check(link->SemanticPose().Resolve(pose, "__model__"), "link " + lt.name);
    lt.pose = FromIgn(pose);
    const auto& inertial = link->Inertial();
    lt.mass = inertial.MassMatrix().Mass();
    const Eigen::Isometry3d frame = FromIgn(inertial.Pose());
    lt.com = frame.translation();
    const auto moi = inertial.MassMatrix().Moi();
    Eigen::Matrix3d principal;
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < 3; ++c) principal(r, c) = moi(r, c);
    lt.inertia = frame.linear() * principal * frame.linear().transpose();
    if (!model.Static()) {  // checked here, before any ODE object exists (ODE asserts on it)
      dMass check;
      const Eigen::Matrix3d& I = lt.inertia;
      dMassSetParameters(&check, lt.mass, 0, 0, 0, I(0, 0), I(1, 1), I(2, 2), I(0, 1), I(0, 2), I(1, 2));
      if (!(std::isfinite(lt.mass) && lt.mass > 0.0 && I.allFinite() && lt.com.allFinite() && dMassCheck(&check)))
        throw std::invalid_argument("link " + lt.name + ": its mass and inertia are not physical");
    }
    for (uint64_t k = 0; k < link->CollisionCount(); ++k) {
      const sdf::Collision* col = link->CollisionByIndex(k);
      ignition::math::Pose3d cp;
      Check(col->SemanticPose().Resolve(cp, lt.name), "collision " + col->Name());
      const sdf::Geometry* g = col->Geom();
      GeomTemplate gt{Shape::kBox, Eigen::Vector3d::Zero(), FromIgn(cp)};
      switch (g->Type()) {
        case sdf::GeometryType::BOX: {
          const auto s = g->BoxShape()->Size();
          gt.size = {s.X(), s.Y(), s.Z()};
          break;
        }
        case sdf::GeometryType::SPHERE:
          gt.shape = Shape::kSphere;
          gt.size = {g->SphereShape()->Radius(), 0, 0};
          break;
        case sdf::GeometryType::CAPSULE:
          gt.shape = Shape::kCapsule;
          gt.size = {g->CapsuleShape()->Radius(), g->CapsuleShape()->Length(), 0};
          break;
        case sdf::GeometryType::CYLINDER:
          gt.shape = Shape::kCylinder;
          gt.size = {g->CylinderShape()->Radius(), g->CylinderShape()->Length(), 0};
          break;
        case sdf::GeometryType::PLANE: {
          gt.shape = Shape::kPlane;
          const auto n = g->PlaneShape()->Normal();
          gt.size = {n.X(), n.Y(), n.Z()};
          break;
        }
        default:
          throw std::invalid_argument("collision " + col->Name() + ": ODE engine takes box, sphere, capsule, "
                                      "cylinder and plane shapes");
      }
      const bool sized = gt.shape == Shape::kPlane ? gt.size.norm() > 1e-9
                         : gt.shape == Shape::kBox  ? (gt.size.array() > 0.0).all()
                                                    : gt.size.x() > 0.0 && gt.size.y() >= 0.0;
      if (!gt.size.allFinite() || !sized)
        throw std::invalid_argument("collision " + col->Name() + ": its size must be positive");
      if (gt.shape == Shape::kPlane && !model.Static())
        throw std::invalid_argument("collision " + col->Name() + ": a plane must be static");
      lt.geoms.push_back(gt);
    }
    index[lt.name] = static_cast<int>(t->links.size());
    t->links.push_back(std::move(lt));
  }
  if (t->links.empty()) throw std::invalid_argument("model " + model.Name() + " has no link");
  std::vector<JointTemplate> joints;
  std::vector<bool> is_child(t->links.size(), false);
  for (uint64_t j = 0; j < model.JointCount(); ++j) {
    const sdf::Joint* joint = model.JointByIndex(j);
    JointTemplate jt;
    jt.name = joint->Name();
    if (joint->Type() == sdf::JointType::FIXED) {
      jt.hinge = false;
    } else if (joint->Type() != sdf::JointType::REVOLUTE) {
      throw std::invalid_argument("joint " + jt.name + ": ODE engine takes revolute and fixed joints");
    }
    const auto parent = index.find(joint->ParentLinkName());
    const auto child = index.find(joint->ChildLinkName());
    if (child == index.end()) throw std::invalid_argument("joint " + jt.name + ": child is not a link");
    jt.child = child->second;
    jt.parent = parent == index.end() ? -1 : parent->second;
    is_child[jt.child] = true;
    ignition::math::Pose3d jp;
    Check(joint->SemanticPose().Resolve(jp, "__model__"), "joint " + jt.name);
    jt.anchor = FromIgn(jp).translation();
    jt.axis = Eigen::Vector3d::UnitZ();
    if (jt.hinge) {
      const sdf::JointAxis* axis = joint->Axis(0);
      if (axis == nullptr) throw std::invalid_argument("joint " + jt.name + " has no axis");
      ignition::math::Vector3d xyz;
      Check(axis->ResolveXyz(xyz, "__model__"), "joint " + jt.name);
      jt.axis = Eigen::Vector3d(xyz.X(), xyz.Y(), xyz.Z()).normalized();
      jt.lower = axis->Lower();
      jt.upper = axis->Upper();
      jt.effort = axis->Effort();
    }
    joints.push_back(jt);
  }
  t->root = 0;
  for (size_t i = 0; i < is_child.size(); ++i)
    if (!is_child[i]) {
      t->root = static_cast<int>(i);
      break;
    }
  // order joints parents first (forward kinematics walks them in this order)
  std::vector<bool> placed(t->links.size(), false);
  placed[t->root] = true;
  std::vector<bool> used(joints.size(), false);
  for (bool progress = true; progress;) {
    progress = false;
    for (size_t j = 0; j < joints.size(); ++j) {
      if (used[j] || (joints[j].parent >= 0 && !placed[joints[j].parent])) continue;
      used[j] = progress = true;
      placed[joints[j].child] = true;
      t->joints.push_back(joints[j]);
    }
  }
  if (t->joints.size() != joints.size()) throw std::invalid_argument("model " + model.Name() + ": joints form a loop");
  return t;
}

// rcssserver3d's mixing of two ContactJointHandlers' surfaces.
dSurfaceParameters Mix(const Surface& a, const Surface& b) {
  dSurfaceParameters s{};
  auto mix = [](bool on_a, double va, bool on_b, double vb) {
    return on_a && on_b ? (va + vb) / 2.0 : (on_a ? va : vb);
  };
  s.mu = a.mu * 0.5 + b.mu * 0.5;
  s.mode = 0;
  if (a.soft_cfm_on || b.soft_cfm_on) {
    s.mode |= dContactSoftCFM;
    s.soft_cfm = mix(a.soft_cfm_on, a.soft_cfm, b.soft_cfm_on, b.soft_cfm);
  }
  if (a.soft_erp_on || b.soft_erp_on) {
    s.mode |= dContactSoftERP;
    s.soft_erp = mix(a.soft_erp_on, a.soft_erp, b.soft_erp_on, b.soft_erp);
  }
  if (a.bounce_on || b.bounce_on) {
    s.mode |= dContactBounce;
    s.bounce = mix(a.bounce_on, a.bounce, b.bounce_on, b.bounce);
    s.bounce_vel = mix(a.bounce_on, a.bounce_vel, b.bounce_on, b.bounce_vel);
  }
  if (a.slip_on || b.slip_on) {
    s.mode |= dContactSlip1 | dContactSlip2;
    s.slip1 = s.slip2 = mix(a.slip_on, a.slip, b.slip_on, b.slip);
  }
  return s;
}

void NearCallback(void* data, dGeomID a, dGeomID b) { static_cast<OdeWorld*>(data)->Collide(a, b); }

Eigen::Vector3d Vec(const dReal* v) { return {v[0], v[1], v[2]}; }

Eigen::Isometry3d BodyPose(dBodyID body) {
  Eigen::Isometry3d tf = Eigen::Isometry3d::Identity();
  const dReal* q = dBodyGetQuaternion(body);
  tf.linear() = Eigen::Quaterniond(q[0], q[1], q[2], q[3]).normalized().toRotationMatrix();
  tf.translation() = Vec(dBodyGetPosition(body));
  return tf;
}

// A link frame from its body (ODE bodies sit at the centre of mass, in the link's axes).
Eigen::Isometry3d LinkPose(dBodyID body, const LinkTemplate& lt) {
  Eigen::Isometry3d tf = BodyPose(body);
  tf.translation() -= tf.linear() * lt.com;
  return tf;
}

void PlaceBody(dBodyID body, const LinkTemplate& lt, const Eigen::Isometry3d& link) {
  const Eigen::Vector3d p = link * lt.com;
  const Eigen::Quaterniond q(link.linear());
  dBodySetPosition(body, p.x(), p.y(), p.z());
  const dQuaternion dq{q.w(), q.x(), q.y(), q.z()};
  dBodySetQuaternion(body, dq);
}

Eigen::Isometry3d RotationAbout(const Eigen::Vector3d& anchor, const Eigen::Vector3d& axis, double angle) {
  Eigen::Isometry3d r = Eigen::Isometry3d::Identity();
  r.linear() = Eigen::AngleAxisd(angle, axis).toRotationMatrix();
  r.translation() = anchor - r.linear() * anchor;
  return r;
}

}  // namespace

OdeWorld::OdeWorld(const std::string& world_sdf, double timestep, const Settings& settings)
    : timestep_(timestep), settings_(settings) {
  if (!(timestep > 0.0 && timestep <= 0.1)) throw std::invalid_argument("timestep must be in (0, 0.1] s");
  std::call_once(ode_init, [] {
    dInitODE2(0);
    dSetErrorHandler(&Throw);
    dSetDebugHandler(&Throw);
    dSetMessageHandler(&Quiet);
  });
  dAllocateODEDataForThread(dAllocateMaskAll);
  sdf::Root root;
  Check(root.Load(world_sdf), world_sdf);
  if (root.WorldCount() == 0) throw std::invalid_argument(world_sdf + " has no <world>");
  const sdf::World* world = root.WorldByIndex(0);
  world_ = dWorldCreate();
  const auto g = world->Gravity();
  dWorldSetGravity(world_, g.X(), g.Y(), g.Z());
  dWorldSetERP(world_, settings_.erp);
  dWorldSetCFM(world_, settings_.cfm);
  dWorldSetContactSurfaceLayer(world_, settings_.surface_layer);
  dWorldSetAutoDisableFlag(world_, settings_.auto_disable ? 1 : 0);
  space_ = dHashSpaceCreate(nullptr);
  contact_group_ = dJointGroupCreate(0);
  for (uint64_t i = 0; i < world->ModelCount(); ++i) {
    const sdf::Model* model = world->ModelByIndex(i);
    auto t = ReadModel(*model);
    ignition::math::Pose3d pose;
    Check(model->SemanticPose().Resolve(pose), "model " + model->Name());
    const Eigen::Isometry3d tf = FromIgn(pose);
    if (!t->is_static) {  // built as a robot is, at the file's pose
      const Eigen::Quaterniond q(tf.linear());
      const Pose7 p7 = (Pose7() << tf.translation(), q.w(), q.x(), q.y(), q.z()).finished();
      templates_["world:" + model->Name()] = t;
      AddModel("world:" + model->Name(), false, model->Name(), p7);
      continue;
    }
    // static models: body-less geoms in the top space (no arrays)
    auto built = std::make_unique<Model>();
    built->name = model->Name();
    built->tmpl = t;
    for (const auto& lt : t->links)
      for (const auto& gt : lt.geoms) {
        const Eigen::Isometry3d at = tf * lt.pose * gt.pose;
        dGeomID geom;
        if (gt.shape == Shape::kPlane) {
          const Eigen::Vector3d n = (at.linear() * gt.size).normalized();
          geom = dCreatePlane(space_, n.x(), n.y(), n.z(), n.dot(at.translation()));
        } else {
          switch (gt.shape) {
            case Shape::kBox: geom = dCreateBox(space_, gt.size.x(), gt.size.y(), gt.size.z()); break;
            case Shape::kSphere: geom = dCreateSphere(space_, gt.size.x()); break;
            case Shape::kCapsule: geom = dCreateCapsule(space_, gt.size.x(), gt.size.y()); break;
            default: geom = dCreateCylinder(space_, gt.size.x(), gt.size.y()); break;
          }
          dGeomSetPosition(geom, at.translation().x(), at.translation().y(), at.translation().z());
          const Eigen::Quaterniond q(at.linear());
          const dQuaternion dq{q.w(), q.x(), q.y(), q.z()};
          dGeomSetQuaternion(geom, dq);
        }
        built->infos.push_back(std::make_unique<GeomInfo>(GeomInfo{built.get(), -1, Surface{}}));
        dGeomSetData(geom, built->infos.back().get());
        built->geoms.push_back(geom);
      }
    models_.push_back(std::move(built));
  }
  Reindex();
}

// Islands stepped on n pool threads, each island's stages on the thread that owns it, so the
// state after any number of steps is the one-thread state bit for bit (island_threading.hpp).
void OdeWorld::SetStepThreads(int n) {
  if (n < 1 || n > 16) throw std::invalid_argument("step threads: 1..16");
  std::unique_ptr<IslandThreads> threads;
  if (n > 1) threads = std::make_unique<IslandThreads>(static_cast<unsigned>(n));  // throws: nothing changed
  IslandThreads::Release(world_);
  island_threads_ = std::move(threads);
  if (island_threads_) island_threads_->Serve(world_);
  step_threads_ = n;
}

OdeWorld::~OdeWorld() {
  worker_.reset();  // a step in hand ends before the world it steps
  SetStepThreads(1);
  dJointGroupDestroy(contact_group_);
  dSpaceDestroy(space_);  // destroys the geoms and the robots' spaces in it
  dWorldDestroy(world_);
}

// A model file read once (libsdformat takes about 0.1 s for a Nao): its template is kept for
// every robot of that file, and LoadTemplate reads it ahead of the first join.
std::shared_ptr<const ModelTemplate> OdeWorld::Template(const std::string& sdf, bool is_text) {
  const std::string key = is_text ? "text:" + sdf : (sdf.rfind("world:", 0) == 0 ? sdf : "file:" + sdf);
  const auto found = templates_.find(key);
  if (found != templates_.end()) return found->second;
  sdf::Root root;
  const sdf::Errors errors = is_text ? root.LoadSdfString(sdf) : root.Load(sdf);
  if (!errors.empty()) throw std::invalid_argument((is_text ? std::string("model SDF") : sdf) + ": " + Describe(errors));
  if (root.Model() == nullptr) throw std::invalid_argument("the SDF has no <model>");
  std::shared_ptr<const ModelTemplate> read = ReadModel(*root.Model());  // may throw: nothing kept then
  templates_.emplace(key, read);
  return read;
}

void OdeWorld::LoadTemplate(const std::string& path) { Template(path, false); }

void OdeWorld::AddModel(const std::string& sdf, bool is_text, const std::string& name, const Pose7& pose) {
  for (const auto& m : models_)
    if (m->name == name) throw std::invalid_argument("model " + name + " exists");
  const Eigen::Isometry3d tf = ToIsometry(pose);
  const std::shared_ptr<const ModelTemplate> cached = Template(sdf, is_text);
  const ModelTemplate& t = *cached;
  auto model = std::make_unique<Model>();
  Model& m = *model;
  m.name = name;
  m.tmpl = cached;
  m.space = dSimpleSpaceCreate(space_);
  dSpaceSetCleanup(m.space, 1);
  try {
  for (size_t i = 0; i < t.links.size(); ++i) {
    const LinkTemplate& lt = t.links[i];
    dBodyID body = dBodyCreate(world_);
    dMass mass;
    const Eigen::Matrix3d& I = lt.inertia;
    dMassSetParameters(&mass, lt.mass, 0, 0, 0, I(0, 0), I(1, 1), I(2, 2), I(0, 1), I(0, 2), I(1, 2));
    dBodySetMass(body, &mass);
    PlaceBody(body, lt, tf * lt.pose);
    m.bodies.push_back(body);
    for (const auto& gt : lt.geoms) {
      dGeomID geom;
      switch (gt.shape) {
        case Shape::kBox: geom = dCreateBox(m.space, gt.size.x(), gt.size.y(), gt.size.z()); break;
        case Shape::kSphere: geom = dCreateSphere(m.space, gt.size.x()); break;
        case Shape::kCapsule: geom = dCreateCapsule(m.space, gt.size.x(), gt.size.y()); break;
        case Shape::kCylinder: geom = dCreateCylinder(m.space, gt.size.x(), gt.size.y()); break;
        default: throw std::invalid_argument("model " + name + ": a plane must be static");
      }
      dGeomSetBody(geom, body);
      const Eigen::Vector3d offset = gt.pose.translation() - lt.com;
      dGeomSetOffsetPosition(geom, offset.x(), offset.y(), offset.z());
      const Eigen::Quaterniond q(gt.pose.linear());
      const dQuaternion dq{q.w(), q.x(), q.y(), q.z()};
      dGeomSetOffsetQuaternion(geom, dq);
      m.infos.push_back(std::make_unique<GeomInfo>(GeomInfo{&m, static_cast<int>(i), Surface{}}));
      dGeomSetData(geom, m.infos.back().get());
      m.geoms.push_back(geom);
    }
  }
  for (size_t j = 0; j < t.joints.size(); ++j) {
    const JointTemplate& jt = t.joints[j];
    dBodyID child = m.bodies[jt.child];
    dBodyID parent = jt.parent >= 0 ? m.bodies[jt.parent] : nullptr;
    dJointID joint;
    if (jt.hinge) {
      joint = dJointCreateHinge(world_, nullptr);
      dJointAttach(joint, child, parent);  // SimSpark's order: the angle is the child's about the axis
      const Eigen::Vector3d a = tf * jt.anchor;
      const Eigen::Vector3d u = tf.linear() * jt.axis;
      dJointSetHingeAnchor(joint, a.x(), a.y(), a.z());
      dJointSetHingeAxis(joint, u.x(), u.y(), u.z());
      if (std::abs(jt.lower) < 1e15 && std::abs(jt.upper) < 1e15 && jt.lower <= jt.upper) {
        // ODE takes the high stop first when widening, the low one first when narrowing
        dJointSetHingeParam(joint, dParamLoStop, std::max(jt.lower, -M_PI));
        dJointSetHingeParam(joint, dParamHiStop, std::min(jt.upper, M_PI));
        dJointSetHingeParam(joint, dParamLoStop, std::max(jt.lower, -M_PI));
      }
      dJointSetHingeParam(joint, dParamFMax, jt.effort > 0 ? jt.effort : 0.0);
      dJointSetHingeParam(joint, dParamCFM, settings_.hinge_cfm);
      dJointSetHingeParam(joint, dParamStopCFM, settings_.stop_cfm);
      dJointSetHingeParam(joint, dParamStopERP, settings_.stop_erp);
      dJointSetHingeParam(joint, dParamFudgeFactor, settings_.fudge);
      dJointSetHingeParam(joint, dParamBounce, settings_.stop_bounce);
      dJointSetHingeParam(joint, dParamVel, 0.0);
      m.hinge_joints.push_back(static_cast<int>(j));
      m.pd.push_back(0);
    } else {
      joint = dJointCreateFixed(world_, nullptr);
      dJointAttach(joint, child, parent);
      dJointSetFixed(joint);
    }
    m.joints.push_back(joint);
  }
  } catch (...) {  // nothing of a model that could not be built stays in the world
    for (dJointID j : m.joints) dJointDestroy(j);
    for (dBodyID b : m.bodies) dBodyDestroy(b);
    dSpaceDestroy(m.space);
    throw;
  }
  models_.push_back(std::move(model));
  saved_.clear();  // the saved bodies are those of another world: no rollback across a change
  Reindex();
}

void OdeWorld::RemoveModel(const std::string& name) {
  for (auto it = models_.begin(); it != models_.end(); ++it) {
    Model& m = **it;
    if (m.name != name || m.space == nullptr) continue;
    for (dJointID j : m.joints) dJointDestroy(j);
    for (dBodyID b : m.bodies) dBodyDestroy(b);  // contact joints go with the step's group
    dSpaceDestroy(m.space);  // and its geoms (cleanup on)
    models_.erase(it);
    saved_.clear();  // its bodies are gone: no rollback across a change
    Reindex();
    return;
  }
  throw std::out_of_range("no model " + name);
}

Model& OdeWorld::Find(const std::string& name) const {
  for (const auto& m : models_)
    if (m->name == name && m->space != nullptr) return *m;
  throw std::out_of_range("no model " + name);
}

void OdeWorld::Reindex() {
  links_.clear();
  hinges_.clear();
  for (auto& mp : models_) {
    Model& m = *mp;
    if (m.space == nullptr) continue;  // the world file's static geoms
    m.first_link = static_cast<int>(links_.size());
    m.first_hinge = static_cast<int>(hinges_.size());
    for (size_t i = 0; i < m.bodies.size(); ++i) links_.push_back({&m, static_cast<int>(i)});
    for (size_t k = 0; k < m.hinge_joints.size(); ++k) hinges_.push_back({&m, m.hinge_joints[k], static_cast<int>(k)});
  }
  const Eigen::Index h = static_cast<Eigen::Index>(hinges_.size());
  mode_ = Eigen::VectorXi::Zero(h);
  speed_ = q_target_ = dq_target_ = kp_ = kd_ = tau_ = Eigen::VectorXd::Zero(h);
  for (Eigen::Index i = 0; i < h; ++i) speed_[i] = dJointGetHingeParam(hinges_[i].model->joints[hinges_[i].joint], dParamVel);
  wrenches_.clear();
  contacts_ = Contacts{};
}

std::vector<ModelLayout> OdeWorld::Layout() const {
  std::vector<ModelLayout> out;
  for (const auto& mp : models_) {
    const Model& m = *mp;
    if (m.space == nullptr) continue;
    ModelLayout l;
    l.name = m.name;
    l.first_link = m.first_link;
    l.first_hinge = m.first_hinge;
    l.is_static = false;
    for (const auto& lt : m.tmpl->links) l.links.push_back(lt.name);
    for (int j : m.hinge_joints) {
      const JointTemplate& jt = m.tmpl->joints[j];
      l.hinges.push_back(jt.name);
      l.lower.push_back(jt.lower);
      l.upper.push_back(jt.upper);
      l.effort.push_back(jt.effort);
    }
    out.push_back(std::move(l));
  }
  return out;
}

RowMatrix OdeWorld::LinkPoses() const {
  RowMatrix out(links_.size(), 7);
  for (size_t i = 0; i < links_.size(); ++i) {
    const Model& m = *links_[i].model;
    const Eigen::Isometry3d tf = LinkPose(m.bodies[links_[i].link], m.tmpl->links[links_[i].link]);
    const Eigen::Quaterniond q(tf.linear());
    out.row(i) << tf.translation().x(), tf.translation().y(), tf.translation().z(), q.w(), q.x(), q.y(), q.z();
  }
  return out;
}

Eigen::Matrix<double, 6, 1> OdeWorld::LinkTwist(const Model& m, int link) const {
  dBodyID body = m.bodies[link];
  const Eigen::Vector3d origin = LinkPose(body, m.tmpl->links[link]).translation();
  dVector3 v;
  dBodyGetPointVel(body, origin.x(), origin.y(), origin.z(), v);
  const dReal* w = dBodyGetAngularVel(body);
  return (Eigen::Matrix<double, 6, 1>() << v[0], v[1], v[2], w[0], w[1], w[2]).finished();
}

RowMatrix OdeWorld::LinkVelocities() const {
  RowMatrix out(links_.size(), 6);
  for (size_t i = 0; i < links_.size(); ++i) out.row(i) = LinkTwist(*links_[i].model, links_[i].link).transpose();
  return out;
}

RowMatrix OdeWorld::HingeStates() const {
  RowMatrix out(hinges_.size(), 2);
  for (size_t i = 0; i < hinges_.size(); ++i) {
    dJointID j = hinges_[i].model->joints[hinges_[i].joint];
    out(i, 0) = dJointGetHingeAngle(j);
    out(i, 1) = dJointGetHingeAngleRate(j);
  }
  return out;
}

namespace {
void CheckSize(const Eigen::Ref<const Eigen::VectorXd>& v, Eigen::Index n, const char* what) {
  if (v.size() != n) throw std::invalid_argument(std::string(what) + ": one value per hinge");
  if (!v.allFinite()) throw std::invalid_argument(std::string(what) + " must be finite");
}
}  // namespace

void OdeWorld::SetHingeModes(const Eigen::VectorXi& modes) {
  if (modes.size() != mode_.size()) throw std::invalid_argument("modes: one value per hinge");
  for (Eigen::Index i = 0; i < modes.size(); ++i)
    if (modes[i] < 0 || modes[i] > 2) throw std::invalid_argument("hinge mode is 0, 1 or 2");
  mode_ = modes;
}

void OdeWorld::SetHingeVelocities(const Eigen::VectorXd& speeds) {
  CheckSize(speeds, speed_.size(), "speeds");
  speed_ = speeds;
}

void OdeWorld::SetHingePd(const Eigen::VectorXd& q, const Eigen::VectorXd& dq, const Eigen::VectorXd& kp,
                          const Eigen::VectorXd& kd, const Eigen::VectorXd& tau) {
  const Eigen::Index n = speed_.size();
  CheckSize(q, n, "q");
  CheckSize(dq, n, "dq");
  CheckSize(kp, n, "kp");
  CheckSize(kd, n, "kd");
  CheckSize(tau, n, "tau");
  q_target_ = q;
  dq_target_ = dq;
  kp_ = kp;
  kd_ = kd;
  tau_ = tau;
}

void OdeWorld::SetLinkWrench(int link, const Eigen::Vector3d& force, const Eigen::Vector3d& torque) {
  if (link < 0 || link >= LinkCount()) throw std::out_of_range("no link " + std::to_string(link));
  if (!force.allFinite() || !torque.allFinite()) throw std::invalid_argument("wrench must be finite");
  Eigen::Matrix<double, 6, 1> w;
  w << force, torque;
  wrenches_.emplace_back(link, w);
}

namespace {
// A hinge's stops at lo..hi (ODE accepts a stop only on its side of the other).
void SetStops(dJointID j, double lo, double hi) {
  dJointSetHingeParam(j, dParamLoStop, -M_PI);
  dJointSetHingeParam(j, dParamHiStop, hi);
  dJointSetHingeParam(j, dParamLoStop, lo);
}

double Clamp(double v, double lo, double hi) { return std::max(lo, std::min(hi, v)); }
}  // namespace

void OdeWorld::DriveHinges() {
  for (size_t i = 0; i < hinges_.size(); ++i) {
    Model& m = *hinges_[i].model;
    dJointID j = m.joints[hinges_[i].joint];
    const JointTemplate& jt = m.tmpl->joints[hinges_[i].joint];
    const bool limited = std::abs(jt.lower) < 1e15 && std::abs(jt.upper) < 1e15;
    const double lower = limited ? std::max(jt.lower, -M_PI) : -dInfinity;
    const double upper = limited ? std::min(jt.upper, M_PI) : dInfinity;
    if (mode_[i] == 2) {
      // rcsssmj's PD motor as an implicit spring-damper: both stops at the target, with the
      // stop's ERP and CFM that make it kp and kd at this step (ODE's manual, "ERP and CFM");
      // kd dq* + tau as a torque.
      dJointSetHingeParam(j, dParamFMax, 0.0);
      const double h = timestep_;
      const double kp = std::max(0.0, kp_[i]), kd = std::max(0.0, kd_[i]);
      if (kp > 0.0 || kd > 0.0) {
        const double target = kp > 0.0 ? Clamp(q_target_[i], std::max(lower, -M_PI), std::min(upper, M_PI))
                                       : Clamp(dJointGetHingeAngle(j), -M_PI, M_PI);
        SetStops(j, target, target);
        dJointSetHingeParam(j, dParamStopERP, h * kp / (h * kp + kd));
        dJointSetHingeParam(j, dParamStopCFM, 1.0 / (h * kp + kd));
        dJointSetHingeParam(j, dParamBounce, 0.0);
      } else {  // limp: the joint's own stops
        SetStops(j, limited ? lower : -dInfinity, limited ? upper : dInfinity);
        dJointSetHingeParam(j, dParamStopERP, settings_.stop_erp);
        dJointSetHingeParam(j, dParamStopCFM, settings_.stop_cfm);
        dJointSetHingeParam(j, dParamBounce, settings_.stop_bounce);
      }
      double torque = kd * dq_target_[i] + tau_[i];
      if (jt.effort > 0.0) torque = Clamp(torque, -jt.effort, jt.effort);  // a motor's bound, as MuJoCo's
      if (torque != 0.0) dJointAddHingeTorque(j, torque);
      dBodyEnable(m.bodies[jt.child]);
      m.pd[hinges_[i].hinge] = 1;
      continue;
    }
    if (m.pd[hinges_[i].hinge]) {  // back to the joint's own stops
      SetStops(j, limited ? lower : -dInfinity, limited ? upper : dInfinity);
      dJointSetHingeParam(j, dParamStopERP, settings_.stop_erp);
      dJointSetHingeParam(j, dParamStopCFM, settings_.stop_cfm);
      dJointSetHingeParam(j, dParamBounce, settings_.stop_bounce);
      m.pd[hinges_[i].hinge] = 0;
    }
    dJointSetHingeParam(j, dParamFMax, jt.effort > 0 ? jt.effort : 0.0);
    // rcssserver3d's HingeEffector: the speed is taken only strictly inside the range (at a
    // stop the motor keeps its last speed), and a moving command wakes the joint's body.
    const double angle = dJointGetHingeAngle(j);
    if (angle < jt.upper && angle > jt.lower) dJointSetHingeParam(j, dParamVel, speed_[i]);
    if (speed_[i] != 0.0) dBodyEnable(m.bodies[jt.child]);
  }
}

void OdeWorld::Collide(dGeomID a, dGeomID b) {
  if (dGeomIsSpace(a) || dGeomIsSpace(b)) {
    // a robot's space against the rest; nothing inside one robot collides (SimSpark's
    // disableInnerCollision)
    dSpaceCollide2(a, b, this, &NearCallback);
    return;
  }
  auto* ia = static_cast<GeomInfo*>(dGeomGetData(a));
  auto* ib = static_cast<GeomInfo*>(dGeomGetData(b));
  if (ia == nullptr || ib == nullptr || ia->model == ib->model) return;
  dBodyID ba = dGeomGetBody(a), bb = dGeomGetBody(b);
  if (ba == nullptr && bb == nullptr) return;
  if (ba && bb && dAreConnectedExcluding(ba, bb, dJointTypeContact)) return;
  const int max_contacts = std::max(1, std::min(settings_.max_contacts, 16));
  dContact contacts[16];
  int n = 0;
  try {
    n = dCollide(a, b, max_contacts, &contacts[0].geom, sizeof(dContact));
  } catch (const std::exception& e) {
    // ODE's collider failed on this pair (e.g. two boxes at one spot have no contact normal).
    // Caught here, inside the space's collide: an exception leaving it would keep the space
    // locked. The pair has no contact this step; everything else steps.
    ++collision_faults_;
    collision_fault_ = e.what();
    return;
  }
  const dSurfaceParameters surface = Mix(ia->surface, ib->surface);
  for (int k = 0; k < n; ++k) {
    contacts[k].surface = surface;
    dJointID joint = dJointCreateContact(world_, contact_group_, &contacts[k]);
    dJointAttach(joint, ba, bb);
    feedback_.emplace_back();
    dJointSetFeedback(joint, &feedback_.back());
    pending_links_.emplace_back(ia->link < 0 ? -1 : ia->model->first_link + ia->link,
                                ib->link < 0 ? -1 : ib->model->first_link + ib->link);
    pending_points_.push_back(Vec(contacts[k].geom.pos));
  }
}

void OdeWorld::StepStart(int n) {
  if (n < 1 || n > 1000) throw std::invalid_argument("steps: 1..1000");
  if (!worker_) worker_ = std::make_unique<StepWorker>();
  worker_->Start([this, n] { Step(n); });
}

void OdeWorld::StepFinish() {
  if (worker_) worker_->Finish();
}

void OdeWorld::Settle() const {
  if (worker_) worker_->Settle();
}

void OdeWorld::Step(int n) {
  if (n < 1 || n > 1000) throw std::invalid_argument("steps: 1..1000");
  const auto started = std::chrono::steady_clock::now();
  struct Timer {  // the step's wall time, also when it throws
    const std::chrono::steady_clock::time_point started;
    double& out;
    ~Timer() { out = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count(); }
  } timer{started, last_step_s_};
  dAllocateODEDataForThread(dAllocateMaskAll);
  SaveBodies();
  std::string fault;
  try {
    Steps(n);
    if (island_threads_) fault = island_threads_->TakeFault();
    if (fault.empty() && !BodiesFinite()) fault = "a body's state is not finite after the step";
  } catch (const std::exception& e) {
    // ODE threw out of its solver (collisions catch their own faults, so no space stays
    // locked): the contact joints point at feedback freed below
    fault = e.what();
    if (island_threads_) island_threads_->TakeFault();  // the same step's, said once
  }
  if (fault.empty()) return;
  dJointGroupEmpty(contact_group_);
  pending_links_.clear();
  pending_points_.clear();
  feedback_.clear();
  wrenches_.clear();
  RestoreBodies();
  throw PhysicsFault(fault);
}

bool OdeWorld::Rollback() {
  if (saved_.empty()) return false;
  dJointGroupEmpty(contact_group_);
  RestoreBodies();
  return true;
}

void OdeWorld::SaveBodies() {
  saved_.clear();
  saved_time_ = time_;
  for (const auto& mp : models_)
    for (dBodyID b : mp->bodies) {
      BodyState s{};
      s.body = b;
      const dReal* p = dBodyGetPosition(b);
      const dReal* q = dBodyGetQuaternion(b);
      const dReal* v = dBodyGetLinearVel(b);
      const dReal* w = dBodyGetAngularVel(b);
      std::copy(p, p + 3, s.pos);
      std::copy(q, q + 4, s.quat);
      std::copy(v, v + 3, s.linear);
      std::copy(w, w + 3, s.angular);
      s.enabled = dBodyIsEnabled(b) != 0;
      saved_.push_back(s);
    }
}

// Bodies of models removed since the save are gone; bodies added since have no saved state
// and stay as they are (models change only between steps, so neither happens after a Step).
void OdeWorld::RestoreBodies() {
  for (const BodyState& s : saved_) {
    dBodySetPosition(s.body, s.pos[0], s.pos[1], s.pos[2]);
    dBodySetQuaternion(s.body, s.quat);
    dBodySetLinearVel(s.body, s.linear[0], s.linear[1], s.linear[2]);
    dBodySetAngularVel(s.body, s.angular[0], s.angular[1], s.angular[2]);
    dBodySetForce(s.body, 0.0, 0.0, 0.0);  // what the failed step had added is not applied twice
    dBodySetTorque(s.body, 0.0, 0.0, 0.0);
    if (s.enabled) dBodyEnable(s.body); else dBodyDisable(s.body);
  }
  time_ = saved_time_;
}

bool OdeWorld::BodiesFinite() const {
  for (const auto& mp : models_)
    for (dBodyID b : mp->bodies) {
      const dReal* values[] = {dBodyGetPosition(b), dBodyGetLinearVel(b), dBodyGetAngularVel(b)};
      for (const dReal* v : values)
        if (!std::isfinite(v[0]) || !std::isfinite(v[1]) || !std::isfinite(v[2])) return false;
      const dReal* q = dBodyGetQuaternion(b);
      if (!std::isfinite(q[0]) || !std::isfinite(q[1]) || !std::isfinite(q[2]) || !std::isfinite(q[3])) return false;
    }
  return true;
}

void OdeWorld::Steps(int n) {
  for (int s = 0; s < n; ++s) {
    DriveHinges();
    for (auto& mp : models_) {
      const Model& m = *mp;
      if (m.drag_linear <= 0.0 && m.drag_angular <= 0.0) continue;
      for (dBodyID body : m.bodies) {
        if (!dBodyIsEnabled(body)) continue;
        const dReal* v = dBodyGetLinearVel(body);
        const dReal* w = dBodyGetAngularVel(body);
        dBodyAddForce(body, -m.drag_linear * v[0], -m.drag_linear * v[1], -m.drag_linear * v[2]);
        dBodyAddTorque(body, -m.drag_angular * w[0], -m.drag_angular * w[1], -m.drag_angular * w[2]);
      }
    }
    for (const auto& [link, w] : wrenches_) {
      dBodyID body = links_[link].model->bodies[links_[link].link];
      dBodyEnable(body);
      dBodyAddForce(body, w[0], w[1], w[2]);
      dBodyAddTorque(body, w[3], w[4], w[5]);
    }
    pending_links_.clear();
    pending_points_.clear();
    feedback_.clear();
    dSpaceCollide(space_, this, &NearCallback);
    MarkGeomsMoved();
    SolveIslands();
    const Eigen::Index c = static_cast<Eigen::Index>(pending_links_.size());
    contacts_.links.resize(c, 2);
    contacts_.points.resize(c, 3);
    contacts_.forces.resize(c, 3);
    for (Eigen::Index k = 0; k < c; ++k) {
      contacts_.links(k, 0) = pending_links_[k].first;
      contacts_.links(k, 1) = pending_links_[k].second;
      contacts_.points.row(k) = pending_points_[k].transpose();
      const dJointFeedback& f = feedback_[k];
      contacts_.forces.row(k) << f.f1[0], f.f1[1], f.f1[2];
    }
    dJointGroupEmpty(contact_group_);
    time_ += timestep_;
  }
  wrenches_.clear();
}

// ODE's step tells each geom of a body it integrates that it moved, and a geom told so first
// since the last collision pass is moved to the front of its space's list (and its robot's space
// to the front of the world's): the next pass collides in that order, so contacts, the solver's
// rows and the rounding of its results follow the order bodies were integrated in. With islands
// on several threads that order followed their timing, and two threads could relink the world
// space's list at once. Told here first, on this thread, in the models' own order, every geom is
// already marked when the step reaches it and no list changes during the step.
void OdeWorld::MarkGeomsMoved() {
  for (const auto& mp : models_)
    for (dBodyID b : mp->bodies) {
      const dReal* p = dBodyGetPosition(b);
      const dReal x = p[0], y = p[1], z = p[2];
      dBodySetPosition(b, x, y, z);  // the same position: only its geoms are marked moved
    }
}

// dWorldStep's exact solver costs the cube of an island's constraint rows: one Nao 1 ms, two
// driven 5 cm into each other (200 contacts) 18, three 90, five 900 (measured). Models joined
// by contacts into a pile of settings_.pile_models or more, or touching each other at more
// than settings_.pile_contacts points, are stepped by the iterative solver (dWorldQuickStep), the rest
// exactly as rcssserver3d: each group steps alone while the other's bodies are held disabled
// (no joint connects them, so this is the step ODE would take island by island). Enabling a
// body again restarts its idle count, so while a pile lasts no robot falls asleep.
// Fewer awake models than this step on the calling thread: with one robot (and the ball) the
// pool's hand-offs cost more than they share (issue 45: ODE's step at one robot 0.57 ms on two
// threads, 0.44 ms on one). The result is the same either way, bit for bit.
constexpr int kThreadedFromAwakeModels = 3;

void OdeWorld::StepAwake() {
  int awake = 0;
  for (const auto& mp : models_) {
    for (dBodyID b : mp->bodies)
      if (dBodyIsEnabled(b)) {
        ++awake;
        break;
      }
    if (awake >= kThreadedFromAwakeModels) break;
  }
  if (island_threads_ && awake < kThreadedFromAwakeModels) {
    island_threads_->Release(world_);
    dWorldSetStepIslandsProcessingMaxThreadCount(world_, 1);
    dWorldStep(world_, timestep_);
    island_threads_->Serve(world_);
    return;
  }
  dWorldStep(world_, timestep_);
}

void OdeWorld::SolveIslands() {
  std::map<const Model*, const Model*> parent;
  std::function<const Model*(const Model*)> root = [&](const Model* m) {
    auto it = parent.find(m);
    if (it == parent.end() || it->second == m) return m;
    const Model* r = root(it->second);
    parent[m] = r;
    return r;
  };
  std::map<const Model*, int> size;
  for (const auto& [a, b] : pending_links_) {
    if (a < 0 || b < 0) continue;
    const Model* ma = links_[a].model;
    const Model* mb = links_[b].model;
    if (ma == mb) continue;
    parent.emplace(ma, ma);  // every model in a contact is counted, roots too
    parent.emplace(mb, mb);
    const Model* ra = root(ma);
    const Model* rb = root(mb);
    if (ra != rb) parent[ra] = rb;
  }
  std::map<const Model*, int> touches;  // contacts between models, per island
  for (const auto& [a, b] : pending_links_)
    if (a >= 0 && b >= 0 && links_[a].model != links_[b].model) ++touches[root(links_[a].model)];
  bool pile = false;
  for (const auto& [m, p] : parent) {
    (void)p;
    if (++size[root(m)] >= settings_.pile_models) pile = true;
  }
  for (auto& [r, n] : touches)
    if (n > settings_.pile_contacts) {
      size[r] = settings_.pile_models;  // two robots driven into each other: as costly as a pile
      pile = true;
    }
  if (!pile) {
    StepAwake();
    return;
  }
  std::vector<std::pair<dBodyID, bool>> piled, rest;  // body, enabled before
  for (const auto& mp : models_) {
    if (mp->space == nullptr) continue;
    const bool in_pile = parent.count(mp.get()) && size[root(mp.get())] >= settings_.pile_models;
    for (dBodyID b : mp->bodies) (in_pile ? piled : rest).emplace_back(b, dBodyIsEnabled(b) != 0);
  }
  for (auto& [b, on] : rest) dBodyDisable(b);
  // The iterative solver reorders its rows with ODE's one process-wide random generator: seeded
  // the same before every pile step, a pile steps the same way whatever ran before it (another
  // world in this process, an earlier match), so the run repeats itself.
  // One pile island at a time: the iterative solver's stages inside an island, and the random
  // generator every island draws from, would otherwise be shared between threads in timing order.
  dRandSetSeed(0);
  dWorldSetStepIslandsProcessingMaxThreadCount(world_, 1);
  dWorldQuickStep(world_, timestep_);
  dWorldSetStepIslandsProcessingMaxThreadCount(world_, static_cast<unsigned>(step_threads_));
  for (auto& [b, on] : piled) {
    on = dBodyIsEnabled(b) != 0;
    dBodyDisable(b);
  }
  for (auto& [b, on] : rest)
    if (on) dBodyEnable(b);
  dWorldStep(world_, timestep_);
  for (auto& [b, on] : piled)
    if (on) dBodyEnable(b);
  ++pile_steps_;
}

Eigen::VectorXd OdeWorld::Angles(const Model& m) const {
  Eigen::VectorXd q(m.hinge_joints.size());
  for (size_t i = 0; i < m.hinge_joints.size(); ++i) q[i] = dJointGetHingeAngle(m.joints[m.hinge_joints[i]]);
  return q;
}

Eigen::VectorXd OdeWorld::Rates(const Model& m) const {
  Eigen::VectorXd q(m.hinge_joints.size());
  for (size_t i = 0; i < m.hinge_joints.size(); ++i) q[i] = dJointGetHingeAngleRate(m.joints[m.hinge_joints[i]]);
  return q;
}

Eigen::VectorXd OdeWorld::Positions(const std::string& name) const {
  const Model& m = Find(name);
  Eigen::VectorXd q = Eigen::VectorXd::Zero(6 + m.hinge_joints.size());
  q.tail(m.hinge_joints.size()) = Angles(m);
  return q;
}

Eigen::VectorXd OdeWorld::Velocities(const std::string& name) const {
  const Model& m = Find(name);
  const Eigen::Matrix<double, 6, 1> twist = LinkTwist(m, m.tmpl->root);
  Eigen::VectorXd dq(6 + m.hinge_joints.size());
  dq << twist.tail<3>(), twist.head<3>(), Rates(m);
  return dq;
}

void OdeWorld::Pose(Model& m, const Eigen::Isometry3d& root, const Eigen::VectorXd& angles) {
  const ModelTemplate& t = *m.tmpl;
  std::vector<Eigen::Isometry3d> world(t.links.size());
  std::vector<double> by_joint(t.joints.size(), 0.0);
  for (size_t i = 0; i < m.hinge_joints.size(); ++i) by_joint[m.hinge_joints[i]] = angles[i];
  world[t.root] = root;
  for (size_t j = 0; j < t.joints.size(); ++j) {
    const JointTemplate& jt = t.joints[j];
    if (jt.parent < 0) {
      world[jt.child] = root * t.links[t.root].pose.inverse() * t.links[jt.child].pose;
      continue;
    }
    const Eigen::Isometry3d turn = RotationAbout(jt.anchor, jt.axis, jt.hinge ? by_joint[j] : 0.0);
    world[jt.child] = world[jt.parent] * t.links[jt.parent].pose.inverse() * turn * t.links[jt.child].pose;
  }
  for (size_t i = 0; i < t.links.size(); ++i) {
    PlaceBody(m.bodies[i], t.links[i], world[i]);
    dBodyEnable(m.bodies[i]);
  }
}

void OdeWorld::Move(Model& m, const Eigen::Vector3d& linear, const Eigen::Vector3d& angular,
                    const Eigen::VectorXd& rates) {
  const ModelTemplate& t = *m.tmpl;
  std::vector<Eigen::Vector3d> v(t.links.size()), w(t.links.size());
  std::vector<Eigen::Isometry3d> pose(t.links.size());
  for (size_t i = 0; i < t.links.size(); ++i) pose[i] = LinkPose(m.bodies[i], t.links[i]);
  std::vector<double> by_joint(t.joints.size(), 0.0);
  for (size_t i = 0; i < m.hinge_joints.size(); ++i) by_joint[m.hinge_joints[i]] = rates[i];
  v[t.root] = linear;
  w[t.root] = angular;
  for (size_t j = 0; j < t.joints.size(); ++j) {
    const JointTemplate& jt = t.joints[j];
    const int p = jt.parent >= 0 ? jt.parent : t.root;
    // the axis and anchor now: through the parent, as posed at zero
    const Eigen::Isometry3d parent_now = pose[p] * t.links[p].pose.inverse();
    const Eigen::Vector3d axis = parent_now.linear() * jt.axis;
    const Eigen::Vector3d anchor = parent_now * jt.anchor;
    const Eigen::Vector3d spin = jt.hinge ? Eigen::Vector3d(axis * by_joint[j]) : Eigen::Vector3d::Zero();
    const Eigen::Vector3d oc = pose[jt.child].translation();
    w[jt.child] = w[p] + spin;
    v[jt.child] = v[p] + w[p].cross(oc - pose[p].translation()) + spin.cross(oc - anchor);
  }
  for (size_t i = 0; i < t.links.size(); ++i) {
    const Eigen::Vector3d com = pose[i] * t.links[i].com;
    const Eigen::Vector3d vc = v[i] + w[i].cross(com - pose[i].translation());
    dBodySetLinearVel(m.bodies[i], vc.x(), vc.y(), vc.z());
    dBodySetAngularVel(m.bodies[i], w[i].x(), w[i].y(), w[i].z());
    dBodyEnable(m.bodies[i]);
  }
}

void OdeWorld::SetPositions(const std::string& name, const Eigen::VectorXd& q) {
  Model& m = Find(name);
  if (q.size() != static_cast<Eigen::Index>(6 + m.hinge_joints.size()))
    throw std::invalid_argument("positions: 6 root entries and one per hinge");
  if (!q.allFinite()) throw std::invalid_argument("positions must be finite");
  Repose(m, LinkPose(m.bodies[m.tmpl->root], m.tmpl->links[m.tmpl->root]), q.tail(m.hinge_joints.size()));
}

void OdeWorld::SetVelocities(const std::string& name, const Eigen::VectorXd& dq) {
  Model& m = Find(name);
  if (dq.size() != static_cast<Eigen::Index>(6 + m.hinge_joints.size()))
    throw std::invalid_argument("velocities: 6 root entries and one per hinge");
  if (!dq.allFinite()) throw std::invalid_argument("velocities must be finite");
  Move(m, dq.segment<3>(3), dq.head<3>(), dq.tail(m.hinge_joints.size()));
}

void OdeWorld::SetRootPose(const std::string& name, const Pose7& pose) {
  Model& m = Find(name);
  Repose(m, ToIsometry(pose), Angles(m));
}

void OdeWorld::Repose(Model& m, const Eigen::Isometry3d& root, const Eigen::VectorXd& angles) {
  const Eigen::VectorXd rates = Rates(m);  // the motion is kept: the root's twist and every rate
  const Eigen::Matrix<double, 6, 1> twist = LinkTwist(m, m.tmpl->root);
  Pose(m, root, angles);
  Move(m, twist.head<3>(), twist.tail<3>(), rates);
}

void OdeWorld::SetRootVelocity(const std::string& name, const Eigen::Vector3d& linear, const Eigen::Vector3d& angular) {
  Model& m = Find(name);
  if (!linear.allFinite() || !angular.allFinite()) throw std::invalid_argument("velocity must be finite");
  Move(m, linear, angular, Rates(m));
}

void OdeWorld::SetSurface(const std::string& name, const Surface& surface) {
  Model& m = Find(name);
  for (auto& info : m.infos) info->surface = surface;
}

void OdeWorld::SetStaticSurfaces(const Surface& planes, const Surface& solids) {
  for (auto& mp : models_) {
    if (mp->space != nullptr) continue;
    for (size_t g = 0; g < mp->geoms.size(); ++g)
      mp->infos[g]->surface = dGeomGetClass(mp->geoms[g]) == dPlaneClass ? planes : solids;
  }
}

void OdeWorld::SetDrag(const std::string& name, double linear, double angular) {
  if (!(std::isfinite(linear) && std::isfinite(angular) && linear >= 0 && angular >= 0))
    throw std::invalid_argument("drag must be finite and >= 0");
  Model& m = Find(name);
  m.drag_linear = linear;
  m.drag_angular = angular;
}

}  // namespace sim_ode
