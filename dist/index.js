import { runAction } from './spread.js';

await runAction();
