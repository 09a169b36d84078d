// Progress of a long packaging run, in one place for every caller (npm run release; npm run package can
// use the same): `building 3/8 NAME (47 s)` when a step starts, and while it runs a line every 10 s, so a
// run of minutes never looks stuck. Seconds count from the run's start; from the second step on, an
// estimate of what is left (the mean step so far times the steps left); each step's own time when it ends.
const TICK_MS = 10_000;

export function createProgress(total, startedAt, write, tickMs = TICK_MS) {
  let n = 0;
  let timer;
  let current = '';
  let stepStart = 0;
  const took = [];
  const elapsed = () => `${Math.round((Date.now() - startedAt) / 1000)} s`;
  const left = () => {
    if (took.length === 0) return '';
    const mean = took.reduce((a, b) => a + b, 0) / took.length;
    return `; about ${Math.round((mean * (total - took.length)) / 1000)} s left`;
  };
  return {
    start(name) {
      n++;
      current = name;
      stepStart = Date.now();
      write(`  building ${n}/${total} ${name} (${elapsed()}${left()})`);
      clearInterval(timer);
      timer = setInterval(() => write(`  still building ${n}/${total} ${current} (${elapsed()})`), tickMs);
    },
    stop() {
      clearInterval(timer);
      timer = undefined;
      if (!current) return;
      took.push(Date.now() - stepStart);
      write(`  built ${n}/${total} ${current} in ${Math.round(took.at(-1) / 1000)} s`);
      current = '';
    },
  };
}
