// soccersim browser monitor: draws the field from above from the frames on /ws.
"use strict";
const canvas = document.getElementById("field");
const ctx = canvas.getContext("2d");
const $ = (id) => document.getElementById(id);
let field = { length: 30, width: 20, goal_width: 2.1, goal_depth: 0.6, penalty_depth: 1.8,
              penalty_width: 6, center_radius: 2, ball_radius: 0.042 };
const fouls = [];

function scale() { return Math.min(canvas.width / (field.length + 3), canvas.height / (field.width + 3)); }
function px(x, y) {
  const s = scale();
  return [canvas.width / 2 + x * s, canvas.height / 2 - y * s];
}

function drawField() {
  const s = scale(), hl = field.length / 2, hw = field.width / 2;
  ctx.fillStyle = "#2e7d32"; ctx.fillRect(0, 0, canvas.width, canvas.height);
  ctx.strokeStyle = "#eee"; ctx.lineWidth = Math.max(1, 0.05 * s);
  const [x0, y0] = px(-hl, hw);
  ctx.strokeRect(x0, y0, field.length * s, field.width * s);
  ctx.beginPath(); ctx.moveTo(...px(0, hw)); ctx.lineTo(...px(0, -hw)); ctx.stroke();
  ctx.beginPath(); ctx.arc(...px(0, 0), field.center_radius * s, 0, 2 * Math.PI); ctx.stroke();
  for (const sx of [-1, 1]) {
    const xa = sx * hl, xb = sx * (hl - field.penalty_depth), pw = field.penalty_width / 2;
    ctx.beginPath(); ctx.moveTo(...px(xa, pw)); ctx.lineTo(...px(xb, pw)); ctx.lineTo(...px(xb, -pw));
    ctx.lineTo(...px(xa, -pw)); ctx.stroke();
    const [gx, gy] = px(sx > 0 ? hl : -hl - field.goal_depth, field.goal_width / 2);
    ctx.strokeStyle = "#ff8"; ctx.strokeRect(gx, gy, field.goal_depth * s, field.goal_width * s);
    ctx.strokeStyle = "#eee";
  }
}

function drawRobot(r) {
  const s = scale(), [x, y] = px(r.x, r.y), rad = Math.max(6, 0.25 * s);
  ctx.fillStyle = r.side === "left" ? "#1e5ae6" : r.side === "right" ? "#dc2828" : "#999";
  ctx.beginPath(); ctx.arc(x, y, rad, 0, 2 * Math.PI); ctx.fill();
  const a = r.yaw_deg * Math.PI / 180;
  ctx.strokeStyle = "#000"; ctx.lineWidth = 2;
  ctx.beginPath(); ctx.moveTo(x, y); ctx.lineTo(x + 1.4 * rad * Math.cos(a), y - 1.4 * rad * Math.sin(a)); ctx.stroke();
  ctx.fillStyle = "#fff"; ctx.font = "11px sans-serif"; ctx.textAlign = "center"; ctx.fillText(r.unum, x, y + 4);
}

function draw(frame) {
  if (frame.field && frame.field.length) field = frame.field;
  drawField();
  for (const r of frame.robots) drawRobot(r);
  const [bx, by] = px(frame.ball[0], frame.ball[1]);
  ctx.fillStyle = "#ffa000"; ctx.beginPath(); ctx.arc(bx, by, Math.max(4, 0.15 * scale()), 0, 2 * Math.PI); ctx.fill();
  $("team-left").textContent = frame.team_left || "-";
  $("team-right").textContent = frame.team_right || "-";
  $("score-left").textContent = frame.score_left;
  $("score-right").textContent = frame.score_right;
  $("time").textContent = frame.game_time.toFixed(1);
  $("half").textContent = frame.half;
  $("play-mode").textContent = frame.play_mode;
  if (frame.mode === "replay") $("status").textContent = `replay ${frame.game_time.toFixed(1)} s`;
  for (const f of frame.fouls) fouls.push(`${f.type} ${f.side} #${f.unum} @${f.time.toFixed(0)}s`);
  $("fouls").textContent = fouls.slice(-3).join("  ");
  document.body.dataset.robots = frame.robots.length;
  document.body.dataset.time = frame.time;  // the simulation time of the frame on screen
}

function connect() {
  const ws = new WebSocket(`ws://${location.host}/ws`);
  ws.onopen = () => { $("status").textContent = "live"; };
  ws.onmessage = (event) => draw(JSON.parse(event.data));
  ws.onclose = () => { $("status").textContent = "disconnected, retrying"; setTimeout(connect, 1000); };
}
drawField();
connect();
