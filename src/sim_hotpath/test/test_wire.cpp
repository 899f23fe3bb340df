// sim_hotpath's wire code checked in C++ where it is written: the CDR reader's alignment and its
// refusals of short or lying bytes, "%.2f" as Python prints it, both dialects' perception text
// of a known percept, and a percept through the CDR writer and back. The encoders read Python
// objects, so the tests run an embedded interpreter with sim_contracts on its path. Run by
// make test (src/sim_hotpath/test/test_cpp_units.py).
#include <gtest/gtest.h>
#include <pybind11/embed.h>

#include <cstring>
#include <random>
#include <string>

#include "cdr_reader.hpp"
#include "percept_cdr.hpp"
#include "percept_from_cdr.hpp"
#include "pytext.hpp"
#include "rcsssmj_text.hpp"
#include "simspark_text.hpp"

namespace py = pybind11;

namespace {

// 00 01 00 00 | u8 7 | pad | u16 0x1234 | i32 42 | f64 1.5 | string "hi" (offsets from the
// header's end: 0, 2, 4, 8, 16: each aligned to its size)
std::string Fields() {
  std::string b("\x00\x01\x00\x00", 4);
  b += '\x07';
  b += '\0';
  b += std::string("\x34\x12", 2);
  b += std::string("\x2a\x00\x00\x00", 4);
  const double v = 1.5;
  char raw[8];
  std::memcpy(raw, &v, 8);
  b += std::string(raw, 8);
  b += std::string("\x03\x00\x00\x00hi\x00", 7);
  return b;
}

void ReadFields(const std::string& bytes) {
  sim_hotpath::CdrReader r(bytes, "fields");
  EXPECT_EQ(r.u8(), 7);
  EXPECT_EQ(r.u16(), 0x1234);
  EXPECT_EQ(r.i32(), 42);
  EXPECT_EQ(r.f64(), 1.5);
  EXPECT_EQ(r.str().cast<std::string>(), "hi");
  EXPECT_TRUE(r.at_end());
}

std::string ValueError(const std::function<void()>& read) {
  try {
    read();
  } catch (const py::value_error& e) {
    return e.what();
  }
  return "";
}

py::object Contracts() { return py::module_::import("sim_contracts.percept"); }

// The percept every encoder test formats (the fields each dialect carries).
py::object SamplePercept() {
  py::dict scope;
  py::exec(R"(
from sim_contracts.percept import *
percept = Percept(time=12.5, game=GameStateView("PlayOn", 30.25, 1, 2, "Alpha", "Beta", unum=3, side="left"),
                  gyro=(1.0, -2.0, 3.5), accel=(0.25, 0.5, 9.75), joint_names=["hj1", "hj2"],
                  joint_angles=[1.5, -2.5], joint_velocities=[3.0, -4.0],
                  vision=Vision({"B": Polar(1.5, -2.5, 0.25)}), heard=[Heard(12.0, -30.5, "hi", False, True, "Alpha")])
)", scope);
  return scope["percept"];
}

TEST(CdrReader, ReadsEachFieldAlignedToItsSize) { ReadFields(Fields()); }

TEST(CdrReader, EveryTruncationIsAValueError) {
  const std::string bytes = Fields();
  for (std::size_t end = 0; end < bytes.size(); ++end) {
    const std::string what = ValueError([&] { ReadFields(bytes.substr(0, end)); });
    EXPECT_NE(what.find("fields: "), std::string::npos) << "cut at " << end;
  }
}

TEST(CdrReader, LyingAndForeignBytesAreRefused) {
  std::string count("\x00\x01\x00\x00\xff\xff\xff\xff", 8);
  EXPECT_NE(ValueError([&] { sim_hotpath::CdrReader(count, "m").strs(); }).find("longer than the message"),
            std::string::npos);
  std::string no_nul("\x00\x01\x00\x00\x02\x00\x00\x00hi", 10);
  EXPECT_NE(ValueError([&] { sim_hotpath::CdrReader(no_nul, "m").str(); }).find("NUL"), std::string::npos);
  std::string not_utf8("\x00\x01\x00\x00\x02\x00\x00\x00\xff\x00", 10);
  EXPECT_NE(ValueError([&] { sim_hotpath::CdrReader(not_utf8, "m").str(); }).find("UTF-8"), std::string::npos);
  std::string big_endian("\x00\x00\x00\x00", 4);
  EXPECT_NE(ValueError([&] { sim_hotpath::CdrReader(big_endian, "m"); }).find("little-endian"), std::string::npos);
}

TEST(PyText, TwoDecimalsAsPythonPrintsThem) {
  py::object format = py::eval("lambda v: '%.2f' % v");
  std::mt19937_64 rng(43);
  std::uniform_real_distribution<double> wide(-1e6, 1e6), narrow(-2.0, 2.0);
  std::vector<double> values = {0.0, -0.0, 0.005, 0.015, 0.125, 2.675, -0.001, 1e300, -1e-300, 123456.785,
                                std::nan(""), 1.0 / 0.0, -1.0 / 0.0};
  for (int i = 0; i < 20000; ++i) values.push_back(i % 2 ? wide(rng) : narrow(rng));
  for (double v : values) {
    std::string ours;
    sim_hotpath::put_f2(ours, v);
    EXPECT_EQ(ours, format(v).cast<std::string>()) << v;
  }
}

TEST(Encoders, SimSparkPerceptionTextOfAKnownPercept) {
  const py::bytes text = sim_hotpath::encode_simspark_percept(SamplePercept());
  EXPECT_EQ(text.cast<std::string>(),
            "(time (now 12.50))(GS (unum 3) (team left) (sl 1) (sr 2) (t 30.25) (pm PlayOn))"
            "(hear Alpha 12.00 -30.50 hi)(GYR (n torso) (rt 1.00 -2.00 3.50))(ACC (n torso) (a 0.25 0.50 9.75))"
            "(HJ (n hj1) (ax 1.50))(HJ (n hj2) (ax -2.50))(See (B (pol 1.50 -2.50 0.25)))");
}

TEST(Encoders, RcsssmjPerceptionTextOfAKnownPercept) {
  const py::bytes text = sim_hotpath::encode_rcsssmj_percept(SamplePercept());
  // rcsssmj's torso axes (x forward, y left): GYR/ACC (y, -x, z) of SimSpark's; a heard
  // message is its bytes in base64
  EXPECT_EQ(text.cast<std::string>(),
            "(time (now 12.5))(GS (t 30.25)(pm PlayOn)(tl Alpha)(tr Beta)(sl 1)(sr 2))"
            "(quat (n torso_quat) (q 1.0 0.0 0.0 0.0))(pos (n torso_pos) (p 0.0 0.0 0.0))"
            "(GYR (n torso_gyro) (rt -2.0 -1.0 3.5))(ACC (n torso_acc) (a 0.5 -0.25 9.75))"
            "(HJ (n q_hj1)(ax 1.5)(vx 3.0))(HJ (n q_hj2)(ax -2.5)(vx -4.0))(MIC hear (-30 aGk=))"
            "(See (B (pol 1.5 -2.5 0.25)))");
}

TEST(Encoders, APerceptThroughTheCdrWriterAndBack) {
  py::object p = Contracts();
  py::object percept = SamplePercept();
  const py::bytes data = sim_hotpath::percept_cdr(percept, 12, 500000000, py::str("left"), 3);
  const std::string bytes = data;
  ASSERT_GE(bytes.size(), 12u);
  EXPECT_EQ(bytes.substr(0, 4), std::string("\x00\x01\x00\x00", 4));  // XCDR1, little endian
  EXPECT_EQ(bytes.substr(4, 8), std::string("\x0c\x00\x00\x00\x00\x65\xcd\x1d", 8));  // 12 s, 5e8 ns
  py::tuple types = py::make_tuple(p.attr("Percept"), p.attr("GameStateView"), p.attr("ForceResistance"),
                                   p.attr("Vision"), p.attr("SeenPlayer"), p.attr("Polar"), p.attr("Heard"));
  py::object back = sim_hotpath::percept_from_cdr(data, types);
  EXPECT_EQ(py::repr(back).cast<std::string>(), py::repr(percept).cast<std::string>());
  for (std::size_t end = 0; end < bytes.size(); end += 7) {
    EXPECT_NE(ValueError([&] { sim_hotpath::percept_from_cdr(py::bytes(bytes.substr(0, end)), types); }),
              "") << "cut at " << end;
  }
}

}  // namespace

int main(int argc, char** argv) {
  py::scoped_interpreter python;
  py::module_::import("sys").attr("path").attr("insert")(0, SIM_CONTRACTS_ROOT);
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
