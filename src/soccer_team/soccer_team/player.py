"""One base-team player: percepts in, joint speeds (and now and then a beam) out.

Each cycle: the walk's odometry and what the camera saw update the particle filter and the
beliefs (own pose, ball, team-mates, play mode); every few cycles the strategy tree (shared
with the light team, strategy.xml) sets a motion target; the motion layer walks to it, goes
through the ball to dribble it, kicks when the ball lies right, and gets up when the robot lies.
Nothing here knows ROS or a socket: `soccersim team --behaviour base` plays it over the player
topics, and `NaoBrain` also fits the server's in-process LocalBrain protocol.
"""
from __future__ import annotations

import math
from typing import NamedTuple

from sim_contracts.field import FieldSpec
from sim_contracts.percept import Percept, Polar
from sim_master.bt.loader import tick
from soccer_team.beliefs import Beliefs
from soccer_team.kick import KICK_REACH, kick_motion, kick_params, kick_spot
from soccer_team.leg_kinematics import legs_of
from soccer_team.localisation import ParticleFilter, Sighting, team_frame_landmarks
from soccer_team.motion import MotionBrain
from soccer_team.strategy import HOME, factory_for, strategy_xml
from soccer_team.walk import CYCLE, WalkParams

THINK_EVERY = 3  # cycles between ticks of the strategy tree (as often as the camera sees)
BEAM_MODES = ("BeforeKickOff", "Goal_Left", "Goal_Right")
HEAD_SCAN_PERIOD = 4.0  # s for the head's sweep left and right while the ball is not in view
HEAD_SCAN = 1.2  # rad either side
# Other robots in the way: one seen within AVOID_AHEAD before the body and AVOID_WIDTH either side
# of its path slows the walk (to a stop at AVOID_STOP) and steps it aside. Walking into robots
# was the base team's most frequent foul (charging: 12 in one half, each sending a player off
# the field) and a cause of its falls. An opponent at the ball is not avoided when the ball is
# nearer: that is a challenge for the ball, which the rules allow. A team-mate always is: two
# of a side going for one ball knocked each other down before the opponent goal.
AVOID_AHEAD = 0.7  # m
AVOID_WIDTH = 0.3  # m
AVOID_STOP = 0.3  # m
ROBOT_MEMORY = 1.0  # s a robot no longer in view is remembered (moved by the walk's odometry)
VIEW_HALF = math.radians(60.0)  # the camera sees 120 degrees


class SeenRobot(NamedTuple):
    """Another robot's nearest part as last seen, in the body frame (m)."""

    x: float
    y: float
    mate: bool
    seen_at: float  # the percept's time, s


def _wrap(a: float) -> float:
    return math.atan2(math.sin(a), math.cos(a))


_FIELD = FieldSpec()  # the SimSpark field's figures, the default when nobody says otherwise
_OWN_KICK_OFF = {"left": "KickOff_Left", "right": "KickOff_Right"}


class NaoBrain:
    """A base-team player (any shirt number; 1 plays the goalie). `kicks`: near the ball with
    the opponent goal ahead (in play on or its own kick-off), line the ball up before a foot
    and kick it (off: it dribbles).
    `effector_delay`: cycles between its answer and the step it acts in: 0 in the server's
    process and over the player topics, 1 over a SimSpark port (rcssserver3d's and ours).
    `model`: the robot it plays (nao0 ... nao4, the nao_hetero types): the walk and the kick
    put its feet for its legs, and it kicks with its type's kick (kick.kick_params)."""

    def __init__(self, side: str, unum: int, field_length: float = _FIELD.length, field_width: float = _FIELD.width,
                 goal_width: float = _FIELD.goal_width, xml: str | None = None, params: WalkParams | None = None,
                 kicks: bool = True, effector_delay: int = 0, model: str = "nao0") -> None:
        self.beliefs = Beliefs(side, unum, field_length, field_width, goal_width)
        self.motion = MotionBrain(params, effector_delay=effector_delay, legs=legs_of(model))
        self.kick = kick_params(model, self.motion.legs)
        self.filter = ParticleFilter(seed=unum, landmarks=team_frame_landmarks(side),
                                     field_half=(field_length / 2, field_width / 2))
        role = "Goalie" if unum == 1 else "FieldPlayer"
        self.tree = factory_for(self.beliefs).create_tree(xml or strategy_xml(), role)
        self.kicks = kicks
        self._kick_armed = False  # the ball was in the kick's reach: stopping to kick
        self._kick_side = 1.0  # with the left foot (1) or the right (-1)
        self.kicks_made = 0
        self.cycle = 0
        self.ball_relative: tuple[float, float] | None = None  # m, body frame, as last seen
        self.robots_relative: list[SeenRobot] = []
        self._beamed_in: str = ""
        self._beam: tuple[float, float, float] | None = None
        x, y, rot = self.home()
        self.filter.reset(x, y, math.radians(rot))

    # --- the LocalBrain protocol
    def home(self) -> tuple[float, float, float]:
        """Beam target in the team frame (x, y, rotation deg)."""
        x, y = HOME.get(self.beliefs.unum, (-5.0, 0.0))
        return x, y, 0.0

    def set_side(self, side: str) -> None:
        self.beliefs.side = side
        self.filter.landmarks = team_frame_landmarks(side)

    def wants_vision(self) -> bool:
        """Every third cycle, as the camera sees over the topics and the SimSpark port."""
        return (self.cycle + self.beliefs.unum) % 3 == 0

    def beam_request(self) -> tuple[float, float, float] | None:
        """A beam to send with this cycle's answer (x, y, rotation deg), once per stoppage."""
        beam, self._beam = self._beam, None
        return beam

    def act(self, percept: Percept) -> dict[str, float]:
        b = self.beliefs
        angles = dict(zip(percept.joint_names, percept.joint_angles, strict=True))
        dt = percept.time - b.time if b.time else 0.0
        b.time = percept.time
        b.play_mode = percept.game.play_mode
        if percept.game.side:
            self.set_side(percept.game.side)
        b.ball_age += max(dt, 0.0)
        self._odometry()
        if percept.vision is not None:
            self._see(percept, math.radians(angles.get("hj1", 0.0)), angles.get("hj2", 0.0))
        b.x, b.y, b.yaw = self.filter.estimate()
        if b.play_mode in BEAM_MODES and self._beamed_in != b.play_mode:
            self._beamed_in = b.play_mode
            self._beam = self.home()
            x, y, rot = self._beam
            self.filter.reset(x, y, math.radians(rot))
            self.ball_relative, b.ball, b.ball_age = None, None, 1e9  # seen from where it stood
        elif b.play_mode not in BEAM_MODES:
            self._beamed_in = ""
        if (self.cycle + b.unum) % THINK_EVERY == 0:
            tick(self.tree)
            self._command_motion()
        self._point_head()
        self.cycle += 1
        return self.motion.act(percept)

    # --- senses
    def _odometry(self) -> None:
        walk = self.motion.walk
        if walk.walking and not self.motion.busy:
            vx, vy, vt = walk.odometry()
            fx, fy, ft = vx * CYCLE, vy * CYCLE, vt * CYCLE
            self.filter.move(fx, fy, ft)
            c, s = math.cos(-ft), math.sin(-ft)

            def moved(px: float, py: float) -> tuple[float, float]:  # a point as it now lies from the moved body
                return c * (px - fx) - s * (py - fy), s * (px - fx) + c * (py - fy)

            if self.ball_relative is not None:
                self.ball_relative = moved(*self.ball_relative)
            self.robots_relative = [SeenRobot(*moved(r.x, r.y), r.mate, r.seen_at) for r in self.robots_relative]

    def _see(self, percept: Percept, pan: float, tilt_deg: float) -> None:
        """What the camera saw, as flat distances and bearings from the body: its azimuth
        turned by the head's pan, its elevation by the head's tilt (hj2, up positive)."""
        vision = percept.vision
        assert vision is not None

        def flat_bearing(polar: Polar) -> tuple[float, float]:
            flat = polar.distance * math.cos(math.radians(polar.elevation + tilt_deg))
            return flat, math.radians(polar.azimuth) + pan

        sightings = []
        for name, polar in vision.objects.items():
            flat, bearing = flat_bearing(polar)
            if name == "B":
                self.ball_relative = (flat * math.cos(bearing), flat * math.sin(bearing))
                self.beliefs.ball_age = 0.0
            else:
                sightings.append(Sighting(name, flat, bearing))
        if not self.motion.busy:  # a robot getting up sees the sky and the grass at odd angles
            self.filter.see(sightings)
        b = self.beliefs
        x, y, yaw = self.filter.estimate()

        def on_field(rx: float, ry: float) -> tuple[float, float]:
            return x + rx * math.cos(yaw) - ry * math.sin(yaw), y + rx * math.sin(yaw) + ry * math.cos(yaw)

        if self.ball_relative is not None and b.ball_age == 0.0:
            b.ball = on_field(*self.ball_relative)
        team = percept.game.team_left if b.side == "left" else percept.game.team_right
        mates = {}
        # robots out of view now are remembered a while; those in view are as the camera says
        robots = [r for r in self.robots_relative if b.time - r.seen_at < ROBOT_MEMORY
                  and abs(_wrap(math.atan2(r.y, r.x) - pan)) > VIEW_HALF]
        for seen in vision.players:
            mate = seen.team == team
            if not seen.parts or (mate and seen.unum == b.unum):
                continue
            flat, bearing = flat_bearing(min(seen.parts.values(), key=lambda part: part.distance))
            rx, ry = flat * math.cos(bearing), flat * math.sin(bearing)
            robots.append(SeenRobot(rx, ry, mate, b.time))
            if mate:
                mates[seen.unum] = on_field(rx, ry)
        b.mates = mates
        self.robots_relative = robots

    # --- motion
    def _command_motion(self) -> None:
        b, motion = self.beliefs, self.motion
        if motion.busy:
            return
        if b.play_mode in BEAM_MODES or b.play_mode == "GameOver" or b.target is None:
            motion.walk.set_command(0.0, 0.0, 0.0)
            return
        if self._line_up_kick():
            return
        tx, ty = b.target
        dx, dy = tx - b.x, ty - b.y
        c, s = math.cos(-b.yaw), math.sin(-b.yaw)
        rx, ry = c * dx - s * dy, s * dx + c * dy
        dist = math.hypot(rx, ry)
        vmax, smax, tmax = motion.walk.max_speed()
        if dist < 0.12 and not b.push:
            face = b.face
            err = _wrap(math.atan2(face[1] - b.y, face[0] - b.x) - b.yaw) if face else 0.0
            motion.walk.set_command(0.0, 0.0, max(-tmax, min(tmax, 2.0 * err)) if abs(err) > 0.2 else 0.0)
            return
        heading = math.atan2(ry, rx)
        if dist > 0.8 or b.push:
            turn = max(-tmax, min(tmax, 2.5 * heading))
            forward = vmax * max(0.0, math.cos(heading)) if abs(heading) < 0.7 else 0.0
            self._walk(forward, max(-smax, min(smax, 0.5 * ry)) if b.push else 0.0, turn)
        else:  # close: step straight there, turning to what it should face
            face = b.face or (tx, ty)
            err = _wrap(math.atan2(face[1] - b.y, face[0] - b.x) - b.yaw)
            self._walk(max(-vmax, min(vmax, 1.5 * rx)), max(-smax, min(smax, 1.5 * ry)),
                       max(-tmax, min(tmax, 1.5 * err)))

    def _walk(self, forward: float, side: float, turn: float) -> None:
        """The walk told to go so, slowed and stepped aside by the robot most in its way
        (AVOID_*): near it the step aside replaces the sideways command, so nothing cancels it."""
        walk = self.motion.walk
        blocking = self._most_in_the_way() if forward > 0.0 else None
        if blocking is not None:
            _, smax, _ = walk.max_speed()
            room = max(0.0, min(1.0, (blocking.x - AVOID_STOP) / (AVOID_AHEAD - AVOID_STOP)))
            away = -1.0 if blocking.y > 0.0 else 1.0
            forward *= room
            side = max(-smax, min(smax, room * side + (1.0 - room) * away * smax))
        walk.set_command(forward, side, turn)

    def _most_in_the_way(self) -> SeenRobot | None:
        """The nearest robot in the walk's lane (AVOID_AHEAD by AVOID_WIDTH), remembered for
        ROBOT_MEMORY; an opponent with the ball nearer than it is a challenge, not in the way."""
        b = self.beliefs
        ball = self.ball_relative if b.ball_age < ROBOT_MEMORY else None
        lane = [r for r in self.robots_relative
                if 0.0 < r.x < AVOID_AHEAD and abs(r.y) < AVOID_WIDTH and b.time - r.seen_at < ROBOT_MEMORY
                and (r.mate or ball is None or math.hypot(*ball) >= math.hypot(r.x, r.y))]
        return min(lane, key=lambda r: r.x, default=None)

    def _line_up_kick(self) -> bool:
        """Near the ball with the opponent goal ahead: step until the ball lies where the kick
        meets it (kick_spot, before one foot), stand, then kick. False: walk as usual."""
        b, motion = self.beliefs, self.motion
        # pushing, or stopping to kick (beside the ball the strategy may stop calling it a push)
        wanted = self.kicks and (b.push or self._kick_armed) and b.ball_age < 0.3 \
            and (b.play_mode == "PlayOn" or b.play_mode == _OWN_KICK_OFF[b.side])
        if not wanted or self.ball_relative is None:
            self._kick_armed = False
            return False
        rx, ry = self.ball_relative
        goal_bearing = _wrap(math.atan2(-b.y, b.field_length / 2 - b.x) - b.yaw)
        if not (0.0 < rx < 0.6 and abs(ry) < 0.35 and abs(goal_bearing) < 0.6):
            self._kick_armed = False
            return False
        side = self._kick_side if self._kick_armed else (1.0 if ry > 0 else -1.0)  # the foot, once chosen, stays
        spot = kick_spot(motion.legs)
        ex, ey = rx - spot[0], ry - side * spot[1]
        # in reach: stop and kick; a stop takes a few steps, through which the ball, seen with
        # noise, may seem to leave the reach: only twice the reach undoes the decision
        reach = 2.0 if self._kick_armed else 1.0
        self._kick_armed = abs(ex) < reach * KICK_REACH[0] and abs(ey) < reach * KICK_REACH[1] \
            and abs(goal_bearing) < 0.3 * reach
        self._kick_side = side
        if self._kick_armed:
            if motion.walk.walking:  # the kick starts from standing
                motion.walk.set_command(0.0, 0.0, 0.0)
            else:
                self._kick_armed = False
                self.kicks_made += 1
                motion.play(kick_motion("l" if side > 0 else "r", self.kick, motion.legs))
            return True
        vmax, smax, tmax = motion.walk.max_speed()

        def toward(error: float, gain: float, top: float) -> float:  # small gaps still make a step
            speed = gain * error
            return math.copysign(min(top, max(abs(speed), 0.25 * top)), speed) if abs(error) > 0.01 else 0.0

        motion.walk.set_command(toward(ex, 1.5, 0.6 * vmax), toward(ey, 2.0, smax), max(-tmax, min(tmax, goal_bearing)))
        return True

    def _point_head(self) -> None:
        b = self.beliefs
        if self.ball_relative is not None and b.ball_age < 1.0:
            pan = math.atan2(self.ball_relative[1], self.ball_relative[0])
        else:
            pan = HEAD_SCAN * math.sin(2 * math.pi * b.time / HEAD_SCAN_PERIOD)
        self.motion.posture["hj1"] = max(-HEAD_SCAN, min(HEAD_SCAN, pan))
        self.motion.posture["hj2"] = -0.35 if self.ball_relative is not None and b.ball_age < 1.0 \
            and math.hypot(*self.ball_relative) < 1.5 else 0.0
