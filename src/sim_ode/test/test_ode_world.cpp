// OdeWorld without Python: what the engine node relies on of the ODE world, checked where it is
// written. A ball falls as ODE's integrator moves it (v += g h; x += v h) and comes to rest on
// the field; a hinge's velocity motor turns it at the commanded speed; Rollback puts every body
// back where the last Step began; bad worlds, timesteps and commands are refused with an
// exception, never a crash; a step on the step worker ends in the very state a step on the
// calling thread does, and a fault on the worker is thrown by StepFinish. Run by make test (src/sim_hotpath/test/test_cpp_units.py).
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "ode_world.hpp"

namespace {

constexpr double kStep = 0.02;
constexpr double kGravity = 9.81;

// A world file (SDFormat reads worlds from files): a ground plane, gravity along -z.
std::string WorldFile(double gravity) {
  const std::string path = ::testing::TempDir() + "ode_world_test.sdf";
  std::ofstream out(path);
  out << R"(<?xml version="1.0"?><sdf version="1.9"><world name="w"><gravity>0 0 )" << -gravity
      << R"(</gravity><model name="field"><static>true</static><link name="ground"><collision name="c">)"
      << R"(<geometry><plane><normal>0 0 1</normal><size>100 100</size></plane></geometry></collision>)"
      << R"(</link></model></world></sdf>)";
  return path;
}

const char* const kBall = R"(<?xml version="1.0"?><sdf version="1.9"><model name="ball"><link name="ball">
  <inertial><mass>0.026</mass><inertia><ixx>1.8e-5</ixx><iyy>1.8e-5</iyy><izz>1.8e-5</izz></inertia></inertial>
  <collision name="c"><geometry><sphere><radius>0.042</radius></sphere></geometry></collision>
  </link></model></sdf>)";

// Two links on one hinge about z (no contacts: it floats without gravity).
const char* const kArm = R"(<?xml version="1.0"?><sdf version="1.9"><model name="arm">
  <link name="base"><inertial><mass>5</mass><inertia><ixx>0.1</ixx><iyy>0.1</iyy><izz>0.1</izz></inertia></inertial></link>
  <link name="tip"><pose>0.2 0 0 0 0 0</pose>
    <inertial><mass>0.1</mass><inertia><ixx>1e-4</ixx><iyy>1e-4</iyy><izz>1e-4</izz></inertia></inertial></link>
  <joint name="hinge" type="revolute"><parent>base</parent><child>tip</child>
    <axis><xyz>0 0 1</xyz><limit><lower>-3</lower><upper>3</upper><effort>100</effort></limit></axis></joint>
  </model></sdf>)";

sim_ode::Pose7 At(double x, double y, double z) {
  sim_ode::Pose7 p;
  p << x, y, z, 1, 0, 0, 0;
  return p;
}

double BallHeight(const sim_ode::OdeWorld& world) { return world.LinkPoses()(0, 2); }

TEST(OdeWorld, ABallFallsAsOdesIntegratorMovesIt) {
  sim_ode::OdeWorld world(WorldFile(kGravity), kStep, sim_ode::Settings{});
  world.AddModel(kBall, true, "ball", At(0, 0, 1.0));
  ASSERT_EQ(world.LinkCount(), 1);
  for (int n = 1; n <= 10; ++n) {
    world.Step(1);
    // semi-implicit Euler from rest: z_n = z_0 - g h^2 n (n + 1) / 2
    EXPECT_NEAR(BallHeight(world), 1.0 - kGravity * kStep * kStep * n * (n + 1) / 2.0, 1e-9) << "step " << n;
  }
  EXPECT_NEAR(world.Time(), 10 * kStep, 1e-12);
}

TEST(OdeWorld, ABallComesToRestOnTheField) {
  sim_ode::OdeWorld world(WorldFile(kGravity), kStep, sim_ode::Settings{});
  world.AddModel(kBall, true, "ball", At(0, 0, 0.5));
  world.Step(300);
  EXPECT_NEAR(BallHeight(world), 0.042, 0.005);  // its radius, within the soft contact's give
  EXPECT_LT(world.LinkVelocities().row(0).norm(), 0.05);
  const sim_ode::Contacts contacts = world.LastContacts();
  ASSERT_GT(contacts.links.rows(), 0);
  EXPECT_EQ(contacts.links(0, 0) == -1 || contacts.links(0, 1) == -1, true);  // against the static field
}

TEST(OdeWorld, AHingesVelocityMotorTurnsItAtTheCommandedSpeed) {
  sim_ode::OdeWorld world(WorldFile(0.0), kStep, sim_ode::Settings{});
  world.AddModel(kArm, true, "arm", At(0, 0, 1.0));
  ASSERT_EQ(world.HingeCount(), 1);
  Eigen::VectorXd speeds(1);
  speeds << 1.0;  // rad/s
  world.SetHingeVelocities(speeds);
  world.Step(25);
  EXPECT_NEAR(world.HingeStates()(0, 0), 0.5, 0.01);  // 25 steps of 20 ms at 1 rad/s
  EXPECT_NEAR(world.HingeStates()(0, 1), 1.0, 0.01);
}

TEST(OdeWorld, RollbackPutsEveryBodyWhereTheLastStepBegan) {
  sim_ode::OdeWorld world(WorldFile(kGravity), kStep, sim_ode::Settings{});
  world.AddModel(kBall, true, "ball", At(0.5, -0.25, 2.0));
  world.Step(3);
  const sim_ode::RowMatrix before = world.LinkPoses();
  const sim_ode::RowMatrix speeds = world.LinkVelocities();
  world.Step(1);
  ASSERT_GT((world.LinkPoses() - before).norm(), 1e-6);
  ASSERT_TRUE(world.Rollback());
  EXPECT_LT((world.LinkPoses() - before).norm(), 1e-12);
  EXPECT_LT((world.LinkVelocities() - speeds).norm(), 1e-12);
}

TEST(OdeWorld, BadInputIsRefusedWithAnError) {
  EXPECT_THROW(sim_ode::OdeWorld(WorldFile(kGravity), 0.0, sim_ode::Settings{}), std::invalid_argument);
  EXPECT_THROW(sim_ode::OdeWorld(WorldFile(kGravity), 0.5, sim_ode::Settings{}), std::invalid_argument);
  EXPECT_ANY_THROW(sim_ode::OdeWorld(::testing::TempDir() + "no_such_world.sdf", kStep, sim_ode::Settings{}));
  sim_ode::OdeWorld world(WorldFile(kGravity), kStep, sim_ode::Settings{});
  world.AddModel(kArm, true, "arm", At(0, 0, 1.0));
  EXPECT_THROW(world.AddModel(kArm, true, "arm", At(1, 0, 1.0)), std::invalid_argument);  // the name is taken
  EXPECT_ANY_THROW(world.AddModel("<sdf version='1.9'><model name='x'>", true, "broken", At(0, 0, 1)));
  Eigen::VectorXi modes(2);
  modes << 0, 0;
  EXPECT_THROW(world.SetHingeModes(modes), std::invalid_argument);  // one value per hinge
  Eigen::VectorXi bad_mode(1);
  bad_mode << 7;
  EXPECT_THROW(world.SetHingeModes(bad_mode), std::invalid_argument);
  EXPECT_ANY_THROW(world.RemoveModel("nobody"));
  world.Step(1);  // the world steps on after every refusal
  EXPECT_EQ(world.HingeCount(), 1);
}

TEST(OdeWorld, AStepOnTheWorkerEndsWhereAStepHereDoes) {
  sim_ode::OdeWorld here(WorldFile(kGravity), kStep, sim_ode::Settings{});
  sim_ode::OdeWorld there(WorldFile(kGravity), kStep, sim_ode::Settings{});
  for (sim_ode::OdeWorld* world : {&here, &there}) {
    world->AddModel(kBall, true, "ball", At(0.1, 0.2, 0.3));
    world->AddModel(kArm, true, "arm", At(1, 0, 1.0));
  }
  Eigen::VectorXd speeds(1);
  speeds << 2.0;
  for (int n = 0; n < 60; ++n) {  // the ball lands and bounces, the arm turns
    here.SetHingeVelocities(speeds);
    there.SetHingeVelocities(speeds);
    here.Step(1);
    there.StepStart(1);
    there.StepFinish();
    ASSERT_FALSE(there.Stepping());
  }
  EXPECT_EQ((here.LinkPoses() - there.LinkPoses()).norm(), 0.0);  // bit for bit
  EXPECT_EQ((here.LinkVelocities() - there.LinkVelocities()).norm(), 0.0);
  EXPECT_GT(there.LastStepSeconds(), 0.0);
}

TEST(OdeWorld, AFaultOnTheWorkerIsThrownByStepFinishAndTheWorldStepsOn) {
  sim_ode::OdeWorld world(WorldFile(kGravity), kStep, sim_ode::Settings{});
  world.AddModel(kBall, true, "ball", At(0, 0, 1.0));
  world.StepStart(1);
  world.StepFinish();
  const sim_ode::RowMatrix before = world.LinkPoses();
  // a spin of 1e150 rad/s: ODE cannot normalize the rotation (its assertion, thrown)
  world.SetRootVelocity("ball", Eigen::Vector3d::Zero(), Eigen::Vector3d::Constant(1e150));
  world.StepStart(1);
  EXPECT_THROW(world.StepFinish(), sim_ode::PhysicsFault);
  world.StepFinish();  // said once
  EXPECT_EQ((world.LinkPoses() - before).norm(), 0.0);  // rolled back to where the step began
  world.SetRootVelocity("ball", Eigen::Vector3d::Zero(), Eigen::Vector3d::Zero());
  world.StepStart(1);
  EXPECT_NO_THROW(world.StepFinish());
}

}  // namespace
