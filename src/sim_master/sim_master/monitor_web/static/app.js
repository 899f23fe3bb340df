// soccersim browser monitor: the match in 3D (three.js, served locally) or from above in 2D,
// from the messages on /ws (scene, frame, timeline: see monitor_web/frame.py). Replay
// controls and referee buttons send {"cmd": ...} back.
import * as THREE from "three";
import { OrbitControls } from "./vendor/OrbitControls.js";

const $ = (id) => document.getElementById(id);
const SIDE_COLOURS = { left: 0x1e5ae6, right: 0xdc2828, "": 0x9a9a9a };
const CSS_COLOURS = { left: "#1e5ae6", right: "#dc2828", "": "#999" };
let field = { length: 30, width: 20, goal_width: 2.1, goal_depth: 0.6, goal_height: 0.8, penalty_depth: 1.8,
              penalty_width: 6, center_radius: 2, ball_radius: 0.042, lines: [] };
let models = {};
let mode = "live";
let commandsAllowed = false;
let last = null;          // the last frame
let view = "3d";
let ws = null;
const fouls = [];
const said = [];  // the last say messages: {side, team, unum, message, heard_by, time}
let drawings = { sets: {}, agents: [], selected: null };  // agents' RoboViz drawings (the last sent)
const hiddenSets = new Set();  // drawing sets switched off on this page

// ------------------------------------------------------------------ 3D scene
const LEAGUE_PHYSICS = { simspark: "ode", rcsssmj: "mujoco" };  // each league's own (engine/league.py)
const canvas3d = $("view3d");
const renderer = new THREE.WebGLRenderer({ canvas: canvas3d, antialias: true, preserveDrawingBuffer: true });
renderer.setPixelRatio(window.devicePixelRatio || 1);
const scene = new THREE.Scene();
scene.background = new THREE.Color(0x87a9c9);
const camera = new THREE.PerspectiveCamera(45, 1, 0.05, 500);
camera.up.set(0, 0, 1);
const controls = new OrbitControls(camera, canvas3d);
scene.add(new THREE.HemisphereLight(0xffffff, 0x445544, 1.6));
const sun = new THREE.DirectionalLight(0xffffff, 1.4);
sun.position.set(-10, -20, 30);
scene.add(sun);
let fieldGroup = new THREE.Group();
scene.add(fieldGroup);
const robotMeshes = new Map();   // robot id -> {group, links: [Object3D], side, unum, model}
const ball = new THREE.Mesh(new THREE.SphereGeometry(1, 20, 14),
                            new THREE.MeshStandardMaterial({ color: 0xffa000, emissive: 0x552200 }));
scene.add(ball);
function canvasTexture(c) {  // drawn in CSS colours: sRGB, as the page's other colours
  const texture = new THREE.CanvasTexture(c);
  texture.colorSpace = THREE.SRGBColorSpace;
  return texture;
}

// The ball is 8 cm across: from afar a ring of constant screen size shows where it is.
const ballMarker = (() => {
  const c = document.createElement("canvas");
  c.width = c.height = 32;
  const g = c.getContext("2d");
  g.fillStyle = "#ffa000"; g.beginPath(); g.arc(16, 16, 9, 0, 2 * Math.PI); g.fill();
  g.strokeStyle = "#ffa000"; g.lineWidth = 3; g.beginPath(); g.arc(16, 16, 14, 0, 2 * Math.PI); g.stroke();
  const sprite = new THREE.Sprite(new THREE.SpriteMaterial({ map: canvasTexture(c), sizeAttenuation: false,
                                                              depthTest: false }));
  sprite.scale.set(0.025, 0.025, 1);
  scene.add(sprite);
  return sprite;
})();

function buildField() {
  scene.remove(fieldGroup);
  fieldGroup = new THREE.Group();
  const hl = field.length / 2, hw = field.width / 2;
  const grass = new THREE.Mesh(new THREE.PlaneGeometry(field.length + 6, field.width + 6),
                               new THREE.MeshStandardMaterial({ color: 0x2e7d32 }));
  fieldGroup.add(grass);
  const white = new THREE.MeshBasicMaterial({ color: 0xeeeeee });
  const lineWidth = Math.max(0.05, field.length / 600);
  for (const [x1, y1, x2, y2] of drawingLines()) {
    const len = Math.hypot(x2 - x1, y2 - y1);
    const strip = new THREE.Mesh(new THREE.PlaneGeometry(len + lineWidth, lineWidth), white);
    strip.position.set((x1 + x2) / 2, (y1 + y2) / 2, 0.003);
    strip.rotation.z = Math.atan2(y2 - y1, x2 - x1);
    fieldGroup.add(strip);
  }
  const post = new THREE.MeshStandardMaterial({ color: 0xffffff });
  const r = Math.max(0.02, field.goal_width / 60);
  for (const sx of [-1, 1]) {
    const x = sx * hl, back = sx * (hl + field.goal_depth);
    for (const sy of [-1, 1]) {
      const p = new THREE.Mesh(new THREE.CylinderGeometry(r, r, field.goal_height, 10), post);
      p.rotation.x = Math.PI / 2;
      p.position.set(x, sy * field.goal_width / 2, field.goal_height / 2);
      fieldGroup.add(p);
    }
    const bar = new THREE.Mesh(new THREE.CylinderGeometry(r, r, field.goal_width, 10), post);
    bar.position.set(x, 0, field.goal_height);
    fieldGroup.add(bar);
    const net = new THREE.Mesh(new THREE.BoxGeometry(Math.abs(back - x), field.goal_width, field.goal_height),
                               new THREE.MeshStandardMaterial({ color: 0xdddddd, transparent: true, opacity: 0.25 }));
    net.position.set((x + back) / 2, 0, field.goal_height / 2);
    fieldGroup.add(net);
  }
  scene.add(fieldGroup);
  ball.scale.setScalar(field.ball_radius);
}

function drawingLines() {
  if (field.lines && field.lines.length) return field.lines;
  const hl = field.length / 2, hw = field.width / 2;
  return [[-hl, hw, hl, hw], [-hl, -hw, hl, -hw], [-hl, -hw, -hl, hw], [hl, -hw, hl, hw], [0, -hw, 0, hw]];
}

function shapeMesh(shape, material) {
  let geometry;
  const s = shape.size;
  if (shape.type === "box") geometry = new THREE.BoxGeometry(s[0], s[1], s[2]);
  else if (shape.type === "sphere") geometry = new THREE.SphereGeometry(s[0], 14, 10);
  else if (shape.type === "cylinder") geometry = new THREE.CylinderGeometry(s[0], s[0], s[1], 14).rotateX(Math.PI / 2);
  else if (shape.type === "capsule") geometry = new THREE.CapsuleGeometry(s[0], s[1], 4, 12).rotateX(Math.PI / 2);
  else return null;
  const mesh = new THREE.Mesh(geometry, material);
  mesh.position.set(...shape.pos);
  const [w, x, y, z] = shape.quat;
  mesh.quaternion.set(x, y, z, w);
  return mesh;
}

// Numbers are screen-space labels (a constant size on screen, readable in the overview); the
// selected robot's is larger and ringed in yellow.
const LABEL_SCALE = 0.04, SELECTED_LABEL_SCALE = 0.07;
function numberTexture(unum, side, selected) {
  const c = document.createElement("canvas");
  c.width = c.height = 64;
  const g = c.getContext("2d");
  g.fillStyle = CSS_COLOURS[side] || "#999";
  g.beginPath(); g.arc(32, 32, selected ? 26 : 30, 0, 2 * Math.PI); g.fill();
  if (selected) { g.strokeStyle = "#ffd400"; g.lineWidth = 6; g.beginPath(); g.arc(32, 32, 29, 0, 2 * Math.PI); g.stroke(); }
  g.fillStyle = "#fff"; g.font = `bold ${selected ? 32 : 36}px sans-serif`; g.textAlign = "center"; g.textBaseline = "middle";
  g.fillText(String(unum), 32, 34);
  return canvasTexture(c);
}
function numberSprite(unum, side) {
  const sprite = new THREE.Sprite(new THREE.SpriteMaterial({ map: numberTexture(unum, side, false), depthTest: false,
                                                              sizeAttenuation: false }));
  sprite.scale.set(LABEL_SCALE, LABEL_SCALE, 1);
  sprite.renderOrder = 2;
  return sprite;
}
let selectedId = "";
function markSelected() {
  for (const [id, obj] of robotMeshes) {
    const on = id === selectedId;
    if (obj.labelSelected === on) continue;
    obj.labelSelected = on;
    obj.label.material.map.dispose();
    obj.label.material.map = numberTexture(obj.unum, obj.side, on);
    obj.label.material.needsUpdate = true;
    const k = on ? SELECTED_LABEL_SCALE : LABEL_SCALE;
    obj.label.scale.set(k, k, 1);
    obj.label.renderOrder = on ? 3 : 2;
  }
}
// A robot chosen by a click (3D or 2D), the player list, or an agent's RoboViz "select": the
// follow and head cameras are its, its number is ringed.
function select(id) {
  if (!robotMeshes.has(id)) return false;
  selectedId = id;
  $("player").value = id;
  document.body.dataset.selected = id;
  markSelected();
  render();
  return true;
}

function robotObject(r) {
  const model = models[r.model] || { links: [] };
  const group = new THREE.Group();
  const material = new THREE.MeshStandardMaterial({ color: SIDE_COLOURS[r.side] ?? SIDE_COLOURS[""] });
  const links = [];
  for (const link of model.links) {
    const node = new THREE.Group();
    for (const shape of link.shapes) {
      const mesh = shapeMesh(shape, material);
      if (mesh) { mesh.userData.robot = r.id; node.add(mesh); }
    }
    node.userData.name = link.name;
    group.add(node);
    links.push(node);
  }
  if (!model.links.length) {  // a model the scene did not describe: a marker at its base
    const marker = new THREE.Mesh(new THREE.CylinderGeometry(0.1, 0.1, 0.5, 12).rotateX(Math.PI / 2), material);
    marker.position.z = 0.25; marker.userData.robot = r.id;
    group.add(marker);
  }
  const label = numberSprite(r.unum, r.side);
  scene.add(label);
  scene.add(group);
  return { group, links, label, side: r.side, unum: r.unum, model: r.model };
}

function update3d(frame) {
  const present = new Set();
  for (const r of frame.robots) {
    present.add(r.id);
    let obj = robotMeshes.get(r.id);
    if (obj && (obj.side !== r.side || obj.unum !== r.unum || obj.model !== r.model)) {
      scene.remove(obj.group); scene.remove(obj.label); obj = null;
    }
    if (!obj) { obj = robotObject(r); robotMeshes.set(r.id, obj); obj.labelSelected = false; }
    const p = r.links || [];
    let top = r.z;
    obj.links.forEach((node, i) => {
      const k = 7 * i;
      if (k + 6 < p.length) {
        node.position.set(p[k], p[k + 1], p[k + 2]);
        node.quaternion.set(p[k + 4], p[k + 5], p[k + 6], p[k + 3]);
        top = Math.max(top, p[k + 2]);
      }
    });
    if (!obj.links.length) { obj.group.position.set(r.x, r.y, 0); top = 0.5; }
    obj.label.position.set(r.x, r.y, top + 0.16);  // the number just above the head
  }
  for (const [id, obj] of robotMeshes) {
    if (!present.has(id)) { scene.remove(obj.group); scene.remove(obj.label); robotMeshes.delete(id); }
  }
  markSelected();
  ball.position.set(...frame.ball);
  ballMarker.position.set(...frame.ball);
}

// ------------------------------------------------------------------ agents' drawings
// RoboViz's shapes, rebuilt when the drawings change: lines, circles and polygons as lines,
// spheres as meshes, points and texts as screen-size sprites. Colours are the agent's.
const drawGroup = new THREE.Group();
scene.add(drawGroup);
const rgb = (c) => `rgb(${c[0]},${c[1]},${c[2]})`;
function textSprite(text, colour, pixels) {
  const c = document.createElement("canvas");
  const g = c.getContext("2d");
  g.font = `${pixels}px sans-serif`;
  c.width = Math.max(8, Math.ceil(g.measureText(text).width) + 8); c.height = pixels + 8;
  g.font = `${pixels}px sans-serif`; g.fillStyle = colour; g.textBaseline = "middle";
  g.fillText(text, 4, c.height / 2);
  const sprite = new THREE.Sprite(new THREE.SpriteMaterial({ map: canvasTexture(c), sizeAttenuation: false,
                                                              depthTest: false }));
  sprite.scale.set(0.0012 * c.width, 0.0012 * c.height, 1);
  sprite.center.set(0, 0.5);
  return sprite;
}
function shownShapes() {
  return Object.entries(drawings.sets).filter(([name]) => !hiddenSets.has(name)).flatMap(([, shapes]) => shapes);
}
function update3dDrawings() {
  for (const child of [...drawGroup.children]) {
    drawGroup.remove(child);
    child.geometry?.dispose(); child.material?.map?.dispose(); child.material?.dispose();
  }
  for (const s of shownShapes()) {
    const colour = new THREE.Color(rgb(s.color));
    const lineOf = (points, loop) => {
      const geometry = new THREE.BufferGeometry().setFromPoints(points.map((p) => new THREE.Vector3(...p)));
      const material = new THREE.LineBasicMaterial({ color: colour, depthTest: false });
      return loop ? new THREE.LineLoop(geometry, material) : new THREE.Line(geometry, material);
    };
    if (s.kind === "line") drawGroup.add(lineOf(s.points, false));
    else if (s.kind === "polygon" && s.points.length > 1) drawGroup.add(lineOf(s.points, true));
    else if (s.kind === "circle") {
      const [x, y] = s.points[0];
      drawGroup.add(lineOf(Array.from({ length: 48 }, (_, i) => {
        const a = i / 48 * 2 * Math.PI; return [x + s.size * Math.cos(a), y + s.size * Math.sin(a), 0.01];
      }), true));
    } else if (s.kind === "sphere") {
      const mesh = new THREE.Mesh(new THREE.SphereGeometry(Math.max(0.005, s.size), 16, 10),
                                  new THREE.MeshBasicMaterial({ color: colour }));
      mesh.position.set(...s.points[0]);
      drawGroup.add(mesh);
    } else if (s.kind === "point") {
      const mesh = new THREE.Mesh(new THREE.SphereGeometry(0.03, 8, 6), new THREE.MeshBasicMaterial({ color: colour }));
      mesh.position.set(...s.points[0]);
      drawGroup.add(mesh);
    } else if (s.kind === "text") {
      const sprite = textSprite(s.text, rgb(s.color), 16);
      sprite.position.set(...s.points[0]);
      drawGroup.add(sprite);
    }
  }
  for (const a of drawings.agents) {
    const robot = last && last.robots.find((r) => r.side === a.side && r.unum === a.unum);
    if (!robot) continue;
    const sprite = textSprite(a.text, rgb(a.color), 16);
    sprite.position.set(robot.x, robot.y, robot.z + 0.45);
    drawGroup.add(sprite);
  }
}
function draw2dDrawings(s2d) {
  for (const s of shownShapes()) {
    ctx.strokeStyle = ctx.fillStyle = rgb(s.color);
    ctx.lineWidth = Math.max(1, s.width || 1);
    if (s.kind === "line" || s.kind === "polygon") {
      ctx.beginPath(); ctx.moveTo(...px(s.points[0][0], s.points[0][1]));
      for (const p of s.points.slice(1)) ctx.lineTo(...px(p[0], p[1]));
      if (s.kind === "polygon") ctx.closePath();
      ctx.stroke();
    } else if (s.kind === "circle" || s.kind === "sphere") {
      const [x, y] = px(s.points[0][0], s.points[0][1]);
      ctx.beginPath(); ctx.arc(x, y, Math.max(1, s.size * s2d), 0, 2 * Math.PI);
      if (s.kind === "sphere") ctx.fill(); else ctx.stroke();
    } else if (s.kind === "point") {
      const [x, y] = px(s.points[0][0], s.points[0][1]), r = Math.max(2, s.size / 2);
      ctx.fillRect(x - r, y - r, 2 * r, 2 * r);
    } else if (s.kind === "text") {
      const [x, y] = px(s.points[0][0], s.points[0][1]);
      ctx.font = "12px sans-serif"; ctx.textAlign = "left"; ctx.fillText(s.text, x + 3, y - 3);
    }
  }
}
// One checkbox per set (RoboViz's set list): what the agents draw, switched on and off here.
function showDrawSets() {
  const names = Object.keys(drawings.sets).sort();
  const box = $("drawsets");
  if (box.dataset.names === names.join("\n")) return;
  box.dataset.names = names.join("\n");
  box.replaceChildren(...names.map((name) => {
    const label = document.createElement("label");
    const check = document.createElement("input");
    check.type = "checkbox"; check.checked = !hiddenSets.has(name); check.dataset.set = name;
    check.addEventListener("change", () => {
      if (check.checked) hiddenSets.delete(name); else hiddenSets.add(name);
      update3dDrawings(); render();
    });
    label.append(check, document.createTextNode(" " + name));
    return label;
  }));
}
function onDrawings(d) {
  const chosen = d.selected && (!drawings.selected || d.selected.join() !== drawings.selected.join());
  drawings = d;
  if (chosen && last) {  // an agent asked RoboViz to select it
    const r = last.robots.find((x) => x.side === d.selected[0] && x.unum === d.selected[1]);
    if (r) select(r.id);
  }
  showDrawSets();
  update3dDrawings();
  document.body.dataset.drawings = String(d.version);
}

// ------------------------------------------------------------------ cameras
function applyCamera(preset, instant) {
  const hl = field.length / 2, hw = field.width / 2, span = Math.max(field.length, field.width);
  controls.enabled = preset === "overview" || preset === "free" || preset.startsWith("goal");
  if (preset === "overview") {
    camera.fov = 45; camera.position.set(0, -hw - span * 0.55, span * 0.6); controls.target.set(0, 0, 0);
  } else if (preset === "goal-left") {
    camera.fov = 50; camera.position.set(-hl - 5, 0, 3.5); controls.target.set(-hl + 6, 0, 0);
  } else if (preset === "goal-right") {
    camera.fov = 50; camera.position.set(hl + 5, 0, 3.5); controls.target.set(hl - 6, 0, 0);
  }
  if (instant) { camera.updateProjectionMatrix(); camera.lookAt(controls.target); controls.update(); }
}

function followCameras() {
  const preset = $("camera").value;
  for (const obj of robotMeshes.values()) { obj.group.visible = true; obj.label.visible = true; }
  if (preset === "ball" && last) {
    const [bx, by] = last.ball;
    camera.fov = 50;
    camera.position.set(bx, by - 4.5, 3.2);
    camera.lookAt(bx, by, 0);
  } else if (preset === "follow" && last) {
    const r = last.robots.find((x) => x.id === $("player").value);
    if (r) {  // behind the robot, looking where it faces
      const a = r.yaw_deg * Math.PI / 180;
      camera.fov = 55;
      camera.position.set(r.x - 2.2 * Math.cos(a), r.y - 2.2 * Math.sin(a), 1.5);
      camera.lookAt(r.x + 1.5 * Math.cos(a), r.y + 1.5 * Math.sin(a), 0.2);
    }
  } else if (preset === "head" && last) {
    const obj = robotMeshes.get($("player").value);
    const head = obj && (obj.links.find((n) => /head/i.test(n.userData.name)) || obj.links[0]);
    if (head) {
      camera.fov = 90;  // of the 120 deg the robots see, what a screen shows undistorted
      const eye = new THREE.Vector3(0.06, 0, 0.05).applyQuaternion(head.quaternion).add(head.position);
      const ahead = new THREE.Vector3(1, 0, 0).applyQuaternion(head.quaternion).add(eye);
      camera.position.copy(eye);
      camera.lookAt(ahead);
      obj.group.visible = false;  // the view from inside the head, not of its own body
      obj.label.visible = false;
    }
  } else {
    controls.update();
  }
  camera.updateProjectionMatrix();
}

// ------------------------------------------------------------------ 2D view
const canvas2d = $("field");
const ctx = canvas2d.getContext("2d");
function scale2d() { return Math.min(canvas2d.width / (field.length + 3), canvas2d.height / (field.width + 3)); }
function px(x, y) { const s = scale2d(); return [canvas2d.width / 2 + x * s, canvas2d.height / 2 - y * s]; }
function unpx(X, Y) { const s = scale2d(); return [(X - canvas2d.width / 2) / s, (canvas2d.height / 2 - Y) / s]; }

function draw2d(frame) {
  const s = scale2d();
  ctx.fillStyle = "#2e7d32"; ctx.fillRect(0, 0, canvas2d.width, canvas2d.height);
  ctx.strokeStyle = "#eee"; ctx.lineWidth = Math.max(1, 0.05 * s);
  for (const [x1, y1, x2, y2] of drawingLines()) {
    ctx.beginPath(); ctx.moveTo(...px(x1, y1)); ctx.lineTo(...px(x2, y2)); ctx.stroke();
  }
  ctx.strokeStyle = "#ff8";
  for (const sx of [-1, 1]) {
    const [gx, gy] = px(sx > 0 ? field.length / 2 : -field.length / 2 - field.goal_depth, field.goal_width / 2);
    ctx.strokeRect(gx, gy, field.goal_depth * s, field.goal_width * s);
  }
  if (!frame) return;
  for (const r of frame.robots) {
    const [x, y] = px(r.x, r.y), rad = Math.max(9, 0.3 * s);
    ctx.fillStyle = CSS_COLOURS[r.side] || CSS_COLOURS[""];
    ctx.beginPath(); ctx.arc(x, y, rad, 0, 2 * Math.PI); ctx.fill();
    const a = r.yaw_deg * Math.PI / 180;
    ctx.strokeStyle = "#000"; ctx.lineWidth = 2;
    ctx.beginPath(); ctx.moveTo(x, y); ctx.lineTo(x + 1.4 * rad * Math.cos(a), y - 1.4 * rad * Math.sin(a)); ctx.stroke();
    ctx.fillStyle = "#fff"; ctx.font = "11px sans-serif"; ctx.textAlign = "center"; ctx.fillText(r.unum, x, y + 4);
    if (r.id === selectedId) {
      ctx.strokeStyle = "#ffd400"; ctx.lineWidth = 3;
      ctx.beginPath(); ctx.arc(x, y, rad + 4, 0, 2 * Math.PI); ctx.stroke();
    }
  }
  const [bx, by] = px(frame.ball[0], frame.ball[1]);
  ctx.fillStyle = "#ffa000"; ctx.beginPath(); ctx.arc(bx, by, Math.max(4, 0.15 * s), 0, 2 * Math.PI); ctx.fill();
  draw2dDrawings(s);
}

// ------------------------------------------------------------------ page
function resize() {
  const box = $("stage").getBoundingClientRect();
  const w = Math.max(100, Math.floor(box.width)), h = Math.max(100, Math.floor(box.height));
  renderer.setSize(w, h, false);
  camera.aspect = w / h;
  camera.updateProjectionMatrix();
  canvas2d.width = w; canvas2d.height = h;
  render();
}

function render() {
  if (view === "3d") {
    followCameras();
    renderer.render(scene, camera);
  } else {
    draw2d(last);
  }
  document.body.dataset.renders = String(Number(document.body.dataset.renders || 0) + 1);
}

// Each message as text (never markup: it is what an agent sent), in its team's colour.
function showSaid() {
  const box = $("said");
  box.replaceChildren(...said.map((s) => {
    const line = document.createElement("div");
    const heard = s.heard_by.length ? `heard by #${s.heard_by.join(", #")}` : "heard by nobody";
    line.textContent = `${s.time.toFixed(1)} s  ${s.team} #${s.unum}: ${s.message}  (${heard})`;
    line.className = s.side;
    return line;
  }));
}

// Text from the match (team names, robot ids, messages) is set as text, never parsed as HTML.
function legend(frame) {
  const items = [];
  for (const [side, name] of [["left", frame.team_left], ["right", frame.team_right]]) {
    if (!name) continue;
    const span = document.createElement("span");
    span.style.color = CSS_COLOURS[side];
    span.textContent = `\u25A0 ${name}`;
    if (items.length) items.push(document.createTextNode("\u00A0 "));
    items.push(span);
  }
  $("legend").replaceChildren(...items);
}

function onFrame(frame) {
  last = frame;
  update3d(frame);
  if (frame.drawings) onDrawings(frame.drawings);
  else if (drawings.agents.length) update3dDrawings();  // texts over agents follow them
  $("team-left").textContent = frame.team_left || "-";
  $("team-right").textContent = frame.team_right || "-";
  $("score-left").textContent = frame.score_left;
  $("score-right").textContent = frame.score_right;
  $("time").textContent = frame.game_time.toFixed(1);
  $("half").textContent = frame.half;
  $("play-mode").textContent = frame.play_mode;
  if (frame.mode !== "replay") {
    $("status").textContent = frame.paused ? "live, paused" : "live";
    document.body.dataset.paused = String(Boolean(frame.paused));
  }
  if (frame.mode === "replay") {
    $("status").textContent = `replay ${frame.game_time.toFixed(1)} s`;
    // one clock on the page: game time, as the header's (the log's own time runs before kick-off too)
    $("replay-time").textContent = `${frame.game_time.toFixed(1)} s`;
    if (!seeking) $("timebar").value = frame.time;
  }
  for (const f of frame.fouls) fouls.push(`${f.type} ${f.side} #${f.unum} @${f.time.toFixed(0)}s`);
  $("fouls").textContent = fouls.slice(-3).join("  ");
  if (frame.said && frame.said.length) {
    said.push(...frame.said);
    said.splice(0, Math.max(0, said.length - 5));
    showSaid();
  }
  const players = $("player");
  // a robot on the other league's physics says so (the first robot to join picks the world's)
  const label = (r) => r.physics && LEAGUE_PHYSICS[r.league] && LEAGUE_PHYSICS[r.league] !== r.physics
    ? `${r.id} (${r.model} on ${r.physics})` : r.id;
  const ids = frame.robots.map((r) => `${r.id}:${r.physics}`).join(",");
  if (players.dataset.ids !== ids) {
    const keep = players.value;
    players.replaceChildren(...frame.robots.map((r) => {
      const option = document.createElement("option");
      option.value = r.id;
      option.textContent = label(r);
      return option;
    }));
    if (frame.robots.some((r) => r.id === keep)) players.value = keep;
    players.dataset.ids = ids;
  }
  const physics = [...new Set(frame.robots.map((r) => r.physics).filter(Boolean))];
  $("physics").textContent = physics.length ? `${physics.join(", ")} physics` : "";
  legend(frame);
  render();
  document.body.dataset.robots = frame.robots.length;
  document.body.dataset.time = frame.time;  // the simulation time of the frame on screen
}

function onScene(message) {
  mode = message.mode;
  commandsAllowed = message.commands;
  if (message.field) field = message.field;
  models = message.models || {};
  for (const obj of robotMeshes.values()) { scene.remove(obj.group); scene.remove(obj.label); }
  robotMeshes.clear();
  buildField();
  applyCamera($("camera").value, true);
  $("replay").classList.toggle("hidden", mode !== "replay");
  $("referee").classList.toggle("hidden", mode !== "live");
  $("commands-note").textContent = commandsAllowed ? "referee:" : "referee buttons: this machine only";
  for (const b of document.querySelectorAll("#referee button")) b.disabled = !commandsAllowed;
  document.body.dataset.mode = mode;
  document.body.dataset.commands = String(commandsAllowed);
  if (mode === "live") $("status").textContent = "live";
  if (last) onFrame(last);
}

function onTimeline(t) {
  document.body.dataset.loading = "false";
  const bar = $("timebar");
  bar.min = t.start; bar.max = t.end;
  $("play-pause").textContent = t.paused ? "play" : "pause";
  $("speed").value = String(t.speed);
  document.body.dataset.paused = String(t.paused);
  $("events").replaceChildren();
  for (const e of t.events) {
    const b = document.createElement("button");
    // labelled in game time, as the header's clock (the log's own time runs before kick-off too)
    b.textContent = `${e.kind === "goal" ? "goal" : e.detail} ${e.team} ${e.game_time.toFixed(1)}s`;
    b.dataset.gameTime = e.game_time.toFixed(1);
    b.style.color = CSS_COLOURS[e.team] || "#ccc";
    // a goal: the moment after the ball crossed the line (new score, ball in the net); a foul: 1 s before
    b.onclick = () => send({ cmd: "seek", time: e.kind === "goal" ? e.time + 0.04 : Math.max(t.start, e.time - 1) });
    b.dataset.kind = e.kind;
    $("events").appendChild(b);
  }
}

// What the server refused of this page's commands, shown for a while (as text: it quotes the page).
let noticeTimer = null;
function notice(text) {
  $("notice").textContent = text;
  document.body.dataset.notice = text;
  clearTimeout(noticeTimer);
  noticeTimer = setTimeout(() => { $("notice").textContent = ""; }, 8000);
}

function send(command) { if (ws && ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify(command)); }
window.soccersim = { send, select, last: () => last, camera: (preset) => { $("camera").value = preset; applyCamera(preset, true); render(); },
                     // where a field point is on the page (tests click there)
                     pagePoint: (x, y) => {
                       const box = canvas2d.getBoundingClientRect(), [X, Y] = px(x, y);
                       return [box.left + X, box.top + Y];
                     } };

let seeking = false;
$("timebar").addEventListener("input", () => { seeking = true; });
$("timebar").addEventListener("change", () => { seeking = false; send({ cmd: "seek", time: Number($("timebar").value) }); });
$("play-pause").onclick = () => send({ cmd: document.body.dataset.paused === "true" ? "play" : "pause" });
$("step").onclick = () => send({ cmd: "step", cycles: 1 });
$("speed").onchange = () => send({ cmd: "speed", value: Number($("speed").value) });
$("camera").onchange = () => { applyCamera($("camera").value, true); render(); };
$("player").onchange = () => select($("player").value);
$("view-toggle").onclick = () => {
  view = view === "3d" ? "2d" : "3d";
  $("view-toggle").textContent = view === "3d" ? "2D" : "3D";
  canvas3d.classList.toggle("hidden", view !== "3d");
  canvas2d.classList.toggle("hidden", view !== "2d");
  document.body.dataset.view = view;
  render();
};
for (const b of document.querySelectorAll("#referee button")) {
  b.onclick = () => send(b.dataset.side ? { cmd: b.dataset.cmd, side: b.dataset.side } : { cmd: b.dataset.cmd });
}
controls.addEventListener("change", () => { if (view === "3d") renderer.render(scene, camera); });

// Dragging the ball or a robot (2D view, referee commands allowed): where it is dropped, it goes.
let dragging = null;
// A click (not an orbit drag) on a robot in 3D selects it.
const raycaster = new THREE.Raycaster();
let pressed3d = null;
canvas3d.addEventListener("pointerdown", (e) => { pressed3d = [e.offsetX, e.offsetY]; });
canvas3d.addEventListener("pointerup", (e) => {
  if (!pressed3d || Math.hypot(e.offsetX - pressed3d[0], e.offsetY - pressed3d[1]) > 4) return;
  const box = canvas3d.getBoundingClientRect();
  raycaster.setFromCamera(new THREE.Vector2(e.offsetX / box.width * 2 - 1, -(e.offsetY / box.height) * 2 + 1), camera);
  const hit = raycaster.intersectObjects([...robotMeshes.values()].map((o) => o.group), true)
    .find((h) => h.object.userData.robot);
  if (hit) select(hit.object.userData.robot);
});
canvas2d.addEventListener("pointerdown", (e) => {
  if (!last) return;
  const [x, y] = unpx(e.offsetX, e.offsetY);
  const near = (px_, py_) => Math.hypot(px_ - x, py_ - y) < 0.4;
  const r = last.robots.find((r) => near(r.x, r.y));
  if (near(last.ball[0], last.ball[1]) && !r) dragging = { kind: "ball", from: [x, y] };
  else if (r) dragging = { kind: "robot", id: r.id, side: r.side, unum: r.unum, yaw: r.yaw_deg, from: [x, y] };
});
canvas2d.addEventListener("pointerup", (e) => {
  if (!dragging) return;
  const [x, y] = unpx(e.offsetX, e.offsetY);
  const moved = Math.hypot(x - dragging.from[0], y - dragging.from[1]) > 0.1;
  if (!moved) {  // a click: a robot is selected, the ball stays
    if (dragging.kind === "robot") select(dragging.id);
    dragging = null;
    return;
  }
  if (!commandsAllowed || mode !== "live" || (dragging.kind === "robot" && !dragging.side)) { dragging = null; return; }
  if (dragging.kind === "ball") send({ cmd: "move_ball", x, y });
  else send({ cmd: "move_robot", side: dragging.side, unum: dragging.unum, x, y, yaw: dragging.yaw });
  dragging = null;
});

function connect() {
  ws = new WebSocket(`ws://${location.host}/ws`);
  ws.onopen = () => { $("status").textContent = mode === "replay" ? "replay" : "live"; };
  ws.onmessage = (event) => {
    const message = JSON.parse(event.data);
    if (message.kind === "scene") onScene(message);
    else if (message.kind === "timeline") onTimeline(message);
    else if (message.kind === "loading") {  // a replay reads its whole log before it can seek
      $("status").textContent = `loading the log: ${message.read.toFixed(1)} s read`;
      document.body.dataset.loading = "true";
    }
    else if (message.kind === "error") notice(message.message);
    else onFrame(message);
  };
  ws.onclose = () => { $("status").textContent = "disconnected, retrying"; setTimeout(connect, 1000); };
}
window.addEventListener("resize", resize);
document.body.dataset.view = view;
buildField();
applyCamera("overview", true);
resize();
connect();
