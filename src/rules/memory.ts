// What the judge remembers between exchanges, so that rules one exchange can
// not show alone are still seen: which authorization a redirect answers, which
// client a code was issued to, which tokens worked where, which objects were
// created or deleted. Tokens, codes and secrets are kept only as fingerprints
// (exchange.ts), never as values. Every map is bounded: a proxy runs for days.
import { Bounded } from "../bounded.ts";
import type { ParsedJson } from "./exchange.ts";
import type { Changes } from "./mock-state.ts";

/** An authorization request as the client sent it (GET /OAuth/Authorize). */
export interface AuthorizationSeen {
  clientId: string | undefined;
  redirectUri: string | undefined;
  state: string | undefined;
  responseType: string | undefined;
  at: number;
}

export interface CodeSeen {
  clientId: string | undefined;
  redirectUri: string | undefined;
  /** When it was issued, on the target's clock. */
  issuedAt: number;
  /** Answers 200 that exchanged it. */
  exchanged: number;
  /** What its first exchange issued (fingerprints). */
  access?: string;
  refresh?: string;
  /** A second use was refused: what it issued must stop working (OAUTH-CODE-REUSE-REVOKES). */
  revoked: boolean;
}

export interface AccessTokenSeen {
  /** When it was issued, on the target's clock, and for how long (expires_in). */
  issuedAt: number;
  expiresIn: number;
  via: "code" | "refresh" | "implicit";
  /** The client it was issued to (the token request's, or the authorization request's): shown in bawa proxy's log. */
  clientId: string | undefined;
  /** The refresh token it came from, or came with (fingerprint). */
  lineage: string | undefined;
  /** The code it came from (fingerprint). */
  code: string | undefined;
  /**
   * Databases it was answered on, with the scheme name as it was sent then (`Bearer`); made at its
   * first answer (most tokens a proxy sees issued, 10,000 kept, are never used through it).
   */
  answered: Map<string, string> | undefined;
  revoked: boolean;
}

export interface RefreshTokenSeen {
  clientId: string | undefined;
  secret: string | undefined;
  redirectUri: string | undefined;
  /** A refresh grant with it was answered 200. */
  worked: boolean;
  revoked: boolean;
  /** Databases an access token of its lineage was answered on; made at the first. */
  answered: Set<string> | undefined;
  /** When the newest access token of its lineage expires, on the target's clock (ms). */
  lineageExpiresAt: number;
  /** Its last refresh grant was refused (a finding already reported for it). */
  refusedLast: boolean;
}

type Json = Record<string, unknown>;

/**
 * A view of an object kept between exchanges. A view that is a body as it came (most are) is kept
 * as that body's JSON text, and parsed again the first time it is read: a proxy keeps up to
 * 10,000 objects, and a text is one string where the parsed value is dozens of objects that young-
 * generation collections copied until they reached the old one (bawa proxy under load, POST
 * Customer: 12 µs an exchange less with nothing of a create kept than with both its bodies
 * parsed). The body a create sent is kept as what reads ask of it (SentFields). Read-only, as the
 * parsed bodies it may be.
 */
export class KeptView {
  #text: string | undefined;
  #value: Readonly<Json> | undefined;
  /**
   * What it holds, reckoned in bytes: two a character of the text it is or came from (UTF-16, the
   * most a string takes). Parsed, it holds those strings again, under names and values V8 adds a
   * few words to; a view the judge made from a body has no more of it.
   */
  readonly bytes: number;

  private constructor(text: string | undefined, value: Readonly<Json> | undefined, bytes: number) {
    this.#text = text;
    this.#value = value;
    this.bytes = bytes;
  }

  /** `view`, kept as `body`'s text when it is that body's parsed value itself. */
  static of(view: Readonly<Json>, body?: ParsedJson): KeptView {
    if (body === undefined) return new KeptView(undefined, view, 2 * JSON.stringify(view).length);
    return body.value === view
      ? new KeptView(body.text, undefined, 2 * body.text.length)
      : new KeptView(undefined, view, 2 * body.text.length);
  }

  get value(): Readonly<Json> {
    if (this.#value === undefined) {
      this.#value = JSON.parse(this.#text!) as Json;
      this.#text = undefined;
    }
    return this.#value;
  }
}

/**
 * What a write sent of an object, as later reads of it are judged (CUST-DEFAULTS, CUST-DECIMALS):
 * the described fields it gave, and the decimals it gave with a fraction. Not the body: a proxy
 * keeps up to 10,000 objects, and this is all a read asks of it.
 */
export interface SentFields {
  /** The described fields the body gave, under the table's names. */
  names: readonly string[];
  /** The fields of `format: decimal` it gave a number with a fraction, and that number. */
  decimals: Readonly<Record<string, number>>;
}

/**
 * An object of a resource as the answers showed it (parity of JSON and XML, its lifecycle). Its
 * views may be the parsed bodies themselves, which every reader of an exchange shares: read-only.
 */
export interface ObjectSeen {
  /** Its described fields as the last JSON answer showed them (names and dates as the table writes them). */
  json?: KeptView;
  /** Its fields as the last XML answer showed them, as text. */
  xml?: Record<string, unknown>;
  /** What `xml` holds, reckoned in bytes: two a byte of the answer it was read from. */
  xmlBytes?: number;
  created: boolean;
  deleted: boolean;
  /** What the last write (POST, PUT) sent of it. */
  sent?: SentFields | undefined;
  /** The fields the last PUT changed, and the object before it, until a GET shows them. */
  changed?: { fields: string[]; before: Readonly<Record<string, unknown>>; bytes: number } | undefined;
}

/**
 * The most the objects the judge remembers may weigh together (weighObject). Their count alone
 * (10,000) let one client fill the heap: a customer the contract allows, 50 addresses and every
 * text at its maxLength in four-byte characters, is about 0.5 MB, and 488 creates of it took a
 * proxy with a 256 MB heap down. 64 MiB holds 10,000 customers of the seed's size (1.9 KB of
 * JSON, about 4 KB reckoned), so only objects well past the table's size push out older ones,
 * and it is a quarter of such a heap, beside the bodies in flight and a recording's 32 MiB.
 */
export const OBJECTS_BYTES = 64 * 1024 * 1024;
/** An entry's own cost beyond its views: its key, the entry and what a write sent (a reckoning). */
const ENTRY_BYTES = 256;

/** What an object the judge remembers holds, reckoned in bytes: its views, the one before a PUT, its XML. */
export function weighObject(o: ObjectSeen): number {
  return ENTRY_BYTES + (o.json?.bytes ?? 0) + (o.changed?.bytes ?? 0) + (o.xml ? (o.xmlBytes ?? 0) : 0);
}

/**
 * The most each map keyed by what a client sent may weigh (an authorization's redirect URI and
 * state, a client id, a path): their counts alone let 1,000 authorization requests with a 64 KB
 * state each keep 128 MB. 4 MiB holds every one of them at the sizes real clients send.
 */
export const CLIENT_KEYED_BYTES = 4 * 1024 * 1024;
/** Strings reckoned at two bytes a character (V8 keeps some at one), an entry at ENTRY_BYTES. */
const textWeight = (...texts: Array<string | undefined>) =>
  ENTRY_BYTES + texts.reduce((sum, t) => sum + 2 * (t?.length ?? 0), 0);
const byKey = { limit: CLIENT_KEYED_BYTES, of: (_: unknown, key: string) => textWeight(key) };

export interface MemoryOptions {
  /** The most the objects remembered may weigh together ({@link OBJECTS_BYTES}). */
  objectsBytes?: number;
}

export class Memory {
  /** The single scope, as first seen (an authorization request or a token answer). */
  scope: string | undefined;
  /**
   * Milliseconds to add to the proxy's clock for the target's, for an exchange whose answer names no
   * time (a bawa mock's clock read or moved through /__mock/clock before it named its clock).
   */
  clockOffset = 0;
  /** The same for the exchange judged last, when its answer named the mock's clock (X-Bawa-Clock). */
  #namedOffset: number | undefined;
  authorizations = new Bounded<string, AuthorizationSeen>(1000, {
    limit: CLIENT_KEYED_BYTES,
    of: (a, key) => textWeight(key, a.clientId, a.redirectUri, a.state, a.responseType),
  });
  /** Client id and redirect URI pairs the authorization endpoint accepted. */
  accepted = new Bounded<string, true>(1000, byKey);
  /** Paths (lower case) the authorization endpoint sent the browser to: its screens. */
  screens = new Bounded<string, true>(100);
  codes = new Bounded<string, CodeSeen>();
  access = new Bounded<string, AccessTokenSeen>();
  refresh = new Bounded<string, RefreshTokenSeen>();
  /** Per client id, the fingerprint of the secret a token answer 200 was given for. */
  secrets = new Bounded<string, string>(1000, byKey);
  objects: Bounded<string, ObjectSeen>;
  /** `GET <path>` (without the version letter) answered 2xx, by the letter it was sent with. */
  answeredPaths = new Bounded<string, string>(10_000, byKey);

  constructor(options: MemoryOptions = {}) {
    this.objects = new Bounded(10_000, { limit: options.objectsBytes ?? OBJECTS_BYTES, of: weighObject });
  }

  /** The target's time now, for an exchange that arrived at `at` on the proxy's clock. */
  targetTime(at: number): number {
    return at + (this.#namedOffset ?? this.clockOffset);
  }

  /**
   * The target's clock read `target` when the proxy's read `at` (a GET /__mock/clock, or a POST's
   * answer less the seconds it moved the clock): the offset from now on. Times kept on a clock the
   * judge had wrong are moved by the difference: a run that begins after another moved a mock's
   * clock records the tokens it gets before it reads the clock as issued on the proxy's, and
   * without the move every one of them would look hours old once the clock was read (a second
   * run of the suite failed TOK-EXPIRY so). A difference under a second is the call's own time.
   */
  clockRead(target: number, at: number): void {
    const shift = target - at - this.clockOffset;
    this.clockOffset = target - at;
    if (Math.abs(shift) < 1000) return;
    for (const code of this.codes.values()) code.issuedAt += shift;
    for (const token of this.access.values()) token.issuedAt += shift;
    for (const token of this.refresh.values()) token.lineageExpiresAt += shift;
  }

  /**
   * The exchange about to be judged arrived at `at` on the proxy's clock, and its answer named the
   * time on a bawa mock's clock it was decided at (`named`, X-Bawa-Clock: src/rules/mock-state.ts), or
   * none. A named exchange is judged at its own time, however the clock was moved (at the mock, on
   * its dashboard, through the proxy) and in whatever order exchanges end; one that names none is
   * judged on clockOffset, which named ones leave alone: an answer decided before the clock's first
   * move, or one of a mock restarted since, names none and is judged on the real time. What was kept
   * stays where it was on the mock's clock, so a token ages by every move.
   */
  judging(at: number, named: number | undefined): void {
    this.#namedOffset = named === undefined ? undefined : named - at;
  }

  /** The changes a bawa mock's answer named last (X-Bawa-Changes); none before the first. */
  #changes: Changes = { tokens: 0, objects: 0 };

  /**
   * A bawa mock's answer named how often control calls may have ended tokens or reset objects
   * (X-Bawa-Changes, src/rules/mock-state.ts). A count that differs from the last one named means
   * such a call was made where the judge may not have seen it (the mock's dashboard, another tool):
   * what was kept of it is forgotten, as CONTROL forgets on the calls it sees. Forgetting costs only
   * findings (a token the judge no longer knows is not judged), never a false one, so a count
   * from an answer judged out of order, or of a restarted mock, is taken as it comes.
   */
  changesShown(shown: Changes): void {
    if (shown.tokens !== this.#changes.tokens) this.forgetTokens();
    if (shown.objects !== this.#changes.objects) this.forgetObjects();
    this.#changes = shown;
  }

  /** What a reset of the target's objects ended: the objects seen and the paths answered. */
  forgetObjects(): void {
    this.objects.clear();
    this.answeredPaths.clear();
  }

  /** Everything a target's tokens/revoke or tokens/expire call may have ended: forget it. */
  forgetTokens(): void {
    this.access.clear();
    this.refresh.clear();
    this.codes.clear();
  }
}
