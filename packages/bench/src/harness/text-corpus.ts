import { chance, hashSeed, pick, type Random, seededRandom } from "./random.ts";

/**
 * Deterministic English-like prose for benchmarks. Each text has a main topic whose vocabulary
 * dominates it, with some words from a second topic and from general English, so texts of one
 * topic share words (what keyword and vector search rank by) and texts of different topics
 * mostly do not. Text `i` depends only on (seed, i): any subset can be generated in any order,
 * by any number of concurrent clients, and comes out the same.
 */
export interface CorpusText {
  text: string;
  /** the main topic's name, e.g. "astronomy" */
  topic: string;
}

export interface TextCorpus {
  readonly topics: readonly string[];
  /** text number `index`, about `chars` characters of whole sentences */
  text(index: number, chars?: number): CorpusText;
  /** a short search query (a few topic words), e.g. for a search benchmark */
  query(index: number, words?: number): CorpusText;
}

interface Topic {
  name: string;
  nouns: readonly string[];
  verbs: readonly string[];
  adjectives: readonly string[];
  names: readonly string[];
}

/** Vocabulary is written as comma-separated lists to keep this file readable. */
function list(words: string): readonly string[] {
  return words.split(",").map((w) => w.trim());
}

const TOPICS: readonly Topic[] = [
  {
    name: "astronomy",
    nouns: list(
      "telescope, galaxy, nebula, orbit, comet, asteroid, spectrum, supernova, observatory, planet, moon, star cluster, redshift, exoplanet, eclipse, light curve, dark matter, accretion disk, solar wind, gravitational lens",
    ),
    verbs: list("observes, orbits, emits, detects, collapses, reflects, measures, tracks"),
    adjectives: list("distant, luminous, stellar, faint, infrared, massive, galactic, lunar"),
    names: list("Hubble, Kepler, Vera Rubin, Cassini, Herschel"),
  },
  {
    name: "cooking",
    nouns: list(
      "recipe, sauce, oven, dough, broth, skillet, garlic, butter, pastry, marinade, spice blend, risotto, cutting board, stock pot, caramel, sourdough, vinaigrette, braise, seasoning, kitchen",
    ),
    verbs: list("simmers, roasts, seasons, whisks, bakes, reduces, folds, ferments"),
    adjectives: list("crispy, savory, tender, golden, smoky, fresh, buttery, tangy"),
    names: list("Escoffier, Julia Child, Marcella Hazan, Auguste, Nigella"),
  },
  {
    name: "finance",
    nouns: list(
      "portfolio, bond, dividend, interest rate, balance sheet, inflation, equity, ledger, audit, cash flow, liquidity, mortgage, hedge, quarterly report, central bank, yield curve, valuation, invoice, budget, credit line",
    ),
    verbs: list("invests, hedges, audits, forecasts, allocates, borrows, reports, rebalances"),
    adjectives: list("fiscal, volatile, annual, taxable, liquid, diversified, net, monetary"),
    names: list("the Federal Reserve, Morningstar, Keynes, the treasury, Basel"),
  },
  {
    name: "medicine",
    nouns: list(
      "patient, diagnosis, vaccine, clinical trial, symptom, antibody, dosage, surgery, therapy, immune response, blood pressure, infection, prescription, ward, biopsy, pathogen, cardiologist, recovery, side effect, protocol",
    ),
    verbs: list("treats, diagnoses, prescribes, monitors, screens, vaccinates, heals, examines"),
    adjectives: list("chronic, acute, clinical, viral, cardiac, preventive, surgical, benign"),
    names: list("Pasteur, the WHO, Fleming, Nightingale, the Mayo Clinic"),
  },
  {
    name: "software",
    nouns: list(
      "database, compiler, server, query, function, repository, deployment, cache, index, thread, API, container, schema, pull request, test suite, latency, load balancer, memory leak, framework, pipeline",
    ),
    verbs: list("compiles, deploys, refactors, caches, indexes, queries, serializes, debugs"),
    adjectives: list(
      "concurrent, distributed, typed, asynchronous, scalable, legacy, open-source, stateless",
    ),
    names: list("Linus, Postgres, Ada Lovelace, Grace Hopper, the kernel team"),
  },
  {
    name: "gardening",
    nouns: list(
      "seedling, compost, trellis, perennial, soil, mulch, greenhouse, tomato plant, rose bush, raised bed, pruning shears, root system, fertilizer, hedge row, orchard, watering can, harvest, bulb, vine, flower bed",
    ),
    verbs: list("plants, prunes, waters, harvests, grafts, transplants, germinates, blooms"),
    adjectives: list(
      "leafy, drought-tolerant, organic, seasonal, shady, fertile, hardy, flowering",
    ),
    names: list("Gertrude Jekyll, the allotment society, Capability Brown, Kew, Monty"),
  },
  {
    name: "history",
    nouns: list(
      "empire, treaty, dynasty, manuscript, revolution, archive, chronicle, monarch, parliament, siege, trade route, colony, cathedral, charter, republic, excavation, artifact, senate, frontier, migration",
    ),
    verbs: list("conquers, negotiates, records, rebuilds, abolishes, founds, unites, besieges"),
    adjectives: list(
      "medieval, ancient, imperial, colonial, baroque, feudal, victorian, classical",
    ),
    names: list("Herodotus, the Habsburgs, Charlemagne, the Venetian senate, Elizabeth I"),
  },
  {
    name: "climate",
    nouns: list(
      "glacier, ocean current, carbon dioxide, rainfall, drought, sea level, ice sheet, heatwave, monsoon, emission, coral reef, wetland, aerosol, permafrost, weather station, storm surge, watershed, forest canopy, temperature record, delta",
    ),
    verbs: list("warms, melts, absorbs, floods, erodes, circulates, emits, cools"),
    adjectives: list("arctic, coastal, tropical, atmospheric, seasonal, polar, humid, arid"),
    names: list("the IPCC, NOAA, Copernicus, the Met Office, Keeling"),
  },
];

const GENERAL = {
  nouns: list(
    "team, result, system, study, process, question, approach, report, method, problem, change, example, group, model, period, level, detail, effect",
  ),
  verbs: list("shows, describes, requires, affects, improves, reduces, explains, suggests"),
  adjectives: list("important, recent, common, careful, simple, large, small, new, early"),
  adverbs: list("often, rarely, usually, quickly, gradually, clearly, still, now"),
  prepositions: list("in, with, for, during, near, after, without, across, under"),
  determiners: list("the, a, this, every, one, another, each"),
  connectives: list("because, while, although, until, since, so that, whenever"),
  openers: list(
    "However, In practice, For example, Later, In most cases, As expected, Surprisingly, At first, In the end, By contrast",
  ),
};

/** Topics are drawn with Zipf-like weights (1/rank), so some topics are much more common. */
const TOPIC_WEIGHTS = TOPICS.map((_, i) => 1 / (i + 1));
const TOPIC_WEIGHT_TOTAL = TOPIC_WEIGHTS.reduce((a, b) => a + b, 0);

function pickTopic(random: Random): Topic {
  let r = random() * TOPIC_WEIGHT_TOTAL;
  for (let i = 0; i < TOPICS.length; i++) {
    r -= TOPIC_WEIGHTS[i] as number;
    if (r < 0) return TOPICS[i] as Topic;
  }
  return TOPICS[TOPICS.length - 1] as Topic;
}

/** A sentence generator whose words come mostly from `main`, some from `side` and general English. */
class Writer {
  constructor(
    private readonly random: Random,
    private readonly main: Topic,
    private readonly side: Topic,
  ) {}

  private topic(): Topic {
    return chance(this.random, 0.85) ? this.main : this.side;
  }

  private noun(): string {
    return chance(this.random, 0.75)
      ? pick(this.random, this.topic().nouns)
      : pick(this.random, GENERAL.nouns);
  }

  private verb(): string {
    return chance(this.random, 0.7)
      ? pick(this.random, this.topic().verbs)
      : pick(this.random, GENERAL.verbs);
  }

  private adjective(): string {
    return chance(this.random, 0.7)
      ? pick(this.random, this.topic().adjectives)
      : pick(this.random, GENERAL.adjectives);
  }

  private nounPhrase(): string {
    if (chance(this.random, 0.12)) return pick(this.random, this.topic().names);
    const det = pick(this.random, GENERAL.determiners);
    const noun = this.noun();
    const adjective = chance(this.random, 0.5) ? `${this.adjective()} ` : "";
    const article = det === "a" && /^[aeiou]/i.test(adjective || noun) ? "an" : det;
    return `${article} ${adjective}${noun}`;
  }

  private clause(): string {
    const adverb = chance(this.random, 0.25) ? `${pick(this.random, GENERAL.adverbs)} ` : "";
    let clause = `${this.nounPhrase()} ${adverb}${this.verb()} ${this.nounPhrase()}`;
    if (chance(this.random, 0.45)) {
      clause += ` ${pick(this.random, GENERAL.prepositions)} ${this.nounPhrase()}`;
    }
    return clause;
  }

  sentence(): string {
    let body = this.clause();
    if (chance(this.random, 0.35))
      body += ` ${pick(this.random, GENERAL.connectives)} ${this.clause()}`;
    else if (chance(this.random, 0.2)) body += `, and ${this.clause()}`;
    if (chance(this.random, 0.2)) body = `${pick(this.random, GENERAL.openers)}, ${body}`;
    else if (chance(this.random, 0.08)) {
      body = `In ${1700 + Math.floor(this.random() * 325)}, ${body}`;
    }
    return `${body.charAt(0).toUpperCase()}${body.slice(1)}.`;
  }

  phrase(words: number): string {
    const out = new Set<string>();
    while (out.size < words) {
      out.add(chance(this.random, 0.7) ? pick(this.random, this.main.nouns) : this.adjective());
    }
    return [...out].join(" ");
  }
}

export function createTextCorpus(options: { seed?: number; chars?: number } = {}): TextCorpus {
  const seed = options.seed ?? 1;
  const defaultChars = options.chars ?? 500;
  const writerFor = (kind: string, index: number) => {
    const random = seededRandom(hashSeed(seed, kind, index));
    const main = pickTopic(random);
    let side = pickTopic(random);
    if (side === main) side = TOPICS[(TOPICS.indexOf(main) + 1) % TOPICS.length] as Topic;
    return { main, writer: new Writer(random, main, side) };
  };

  return {
    topics: TOPICS.map((t) => t.name),
    text(index, chars = defaultChars) {
      const { main, writer } = writerFor("text", index);
      // Whole sentences until the text is within ~10% of the target length.
      let text = writer.sentence();
      while (text.length < chars * 0.9) {
        const next = writer.sentence();
        if (text.length + 1 + next.length > chars * 1.1 && text.length >= chars * 0.75) break;
        text += ` ${next}`;
      }
      return { text, topic: main.name };
    },
    query(index, words = 3) {
      const { main, writer } = writerFor("query", index);
      return { text: writer.phrase(words), topic: main.name };
    },
  };
}
