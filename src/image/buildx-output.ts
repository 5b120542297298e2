// buildx's output as spread logs it (held back until the build really starts, so a missing plugin's help
// never floods the log) and the BuildError that names the image, its mark and the failing step.
import type { Logger } from '../base/logger.js';
import { splitReference } from '../base/reference.js';

/**
 * buildx's lines, held back until the context is sent (a cancelled build logs nothing) and buildx
 * prints its first progress line (`#0 building with …`), then logged as they come: a docker CLI
 * without the plugin prints its whole help first, which checkBuildx replaces with what to install.
 */
export function heldLines(logger: Logger): { log(line: string): void; sent(): void; release(): void } {
  let held: string[] | undefined = [];
  let sent = false;
  const progress = (line: string) => /^#\d+ /.test(line);
  const release = () => {
    for (const line of held ?? []) logger.info(line);
    held = undefined;
  };
  return {
    log(line) {
      if (!held) return logger.info(line);
      held.push(line);
      if (sent && progress(line)) release();
    },
    sent() {
      sent = true;
      if (held?.some(progress)) release();
    },
    release,
  };
}

/**
 * A build that failed: the image and where it comes from (`api/Dockerfile, marked at api/web.ctr:2`),
 * the step that failed and why; buildx's output, already logged line by line, is in {@link output}.
 */
export class BuildError extends Error {
  /** `[stage-0 2/3] RUN make`, when a step had started. */
  readonly step: string | undefined;
  readonly output: readonly string[];
  constructor(
    image: string,
    detail: string,
    step: string | undefined,
    output: readonly string[],
    source?: string,
  ) {
    // buildx's lines were logged as they came (in the image's log group): the message does not print
    // them a second time, and keeps them in `output` for reports.
    super(
      `building ${image}${source ? ` (${source})` : ''} failed${step ? ` at ${step}` : ''}: ${detail}${output.length > 0 ? " (buildx's output is in the log above)" : ''}`,
    );
    this.name = 'BuildError';
    this.step = step;
    this.output = output;
  }
}

/** The frontend image of a `# syntax=` line could not be fetched. */
const FRONTEND = /docker\/dockerfile|failed to resolve source metadata for|frontend/i;

function syntaxLine(dockerfileText: string): string | undefined {
  const m = /^#\s*syntax\s*=\s*(\S+)/im.exec(dockerfileText.split('\n').find((l) => !/^\s*$/.test(l)) ?? '');
  return m?.[1];
}

/** The registry answered that it has no such image (distribution's MANIFEST_UNKNOWN, NAME_UNKNOWN). */
const NOT_FOUND = /: not found\b|manifest unknown|name unknown/i;
/** The registry answered, but refused the credentials or their absence. */
const REFUSED = /\b401 Unauthorized|\b403 Forbidden|unauthorized:|denied:/i;

/**
 * What went wrong, in words: a `# syntax=` frontend that could not be pulled is named as such, and
 * why: its registry does not hold it, refused the credentials, or could not be reached.
 */
export function failureDetail(lines: readonly string[], dockerfileText: string): string {
  const error =
    [...lines].reverse().find((l) => /^ERROR:|^error:/i.test(l)) ?? lines.at(-1) ?? 'buildx failed';
  const detail = error.replace(/^ERROR:\s*/, '');
  const syntax = syntaxLine(dockerfileText);
  // The frontend's repository path, so that a FROM image of the same registry is not taken for it.
  if (syntax && FRONTEND.test(error) && error.includes(splitReference(syntax).path)) {
    const why = NOT_FOUND.test(error)
      ? ', which its registry does not hold'
      : REFUSED.test(error)
        ? ', which its registry refused (log in to it, or check the credentials)'
        : ' from its registry, which could not be reached';
    return `the Dockerfile's "# syntax=${syntax}" line needs the frontend image ${syntax}${why} (${detail}); drop the line to use the builder's own Dockerfile frontend, or mirror the image and name the mirror`;
  }
  // A push (or a FROM image) the registry refused, in its own words (`denied: …`, `unauthorized: …`).
  if (REFUSED.test(detail))
    return `${detail}; the registry refused the credentials buildx sent (the Docker config's, DOCKER_CONFIG or ~/.docker): log in to that registry with \`docker login HOST\` (docker/login-action in a workflow) as an account that may pull and push there`;
  return detail;
}

/** buildx's words for a `docker` builder whose Docker engine does not answer. */
const NO_ENGINE = /failed to connect to the docker API|Cannot connect to the Docker daemon/i;

/**
 * buildx's error when a build failed before any step because the builder's Docker engine cannot be
 * reached (the `docker` driver with DOCKER_HOST unset or wrong: a GitLab job without a docker:dind
 * service), without its `ERROR:` prefix; undefined for any other failure. The caller says it as a
 * missing builder (BuildxMissingError), with what to do.
 */
export function unreachableEngine(output: readonly string[]): string | undefined {
  return output.find((l) => NO_ENGINE.test(l))?.replace(/^ERROR:\s*/, '');
}
