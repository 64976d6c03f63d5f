/**
 * The playground's in-process backend: the three services of `vibe.proto`
 * with their state held in memory. Requests arrive and responses leave in
 * protobuf JSON form (docs/calls.md, "Backends").
 */

type Json = Record<string, unknown>

/** A vibe in protobuf JSON form. */
interface Vibe {
  mood?: string
  note?: string
  intensity?: number
  since?: string
  tags?: Record<string, string>
  changeCount?: string
}

interface Track extends Json {
  id?: string
  title?: string
  rating?: Json
  audio?: Json & { explicit?: boolean; fingerprint?: string }
}

interface Playlist {
  id: string
  name: string
  description?: string
  tracks: Track[]
  plays: Record<string, number>
  positionLabels: Record<string, string>
  explicitCounts: Record<string, number>
  byFingerprint: Record<string, Track>
  moods: string[]
  createdAt: string
}

interface Comment {
  id?: string
  author?: string
  text?: string
  at?: string
  replies?: Comment[]
}

interface Entry extends Json {
  id: string
  createdAt: string
  mood?: string
  text: string
  comments: Comment[]
}

/** Options of {@link createBackend}. */
export interface BackendOptions {
  /** The clock, for timestamps and durations. @default () => new Date() */
  now?: () => Date
}

/** An error with a gRPC status code name, which the runtime turns into `rpc error: code = ... desc = ...`. */
function fail(code: 'NotFound' | 'InvalidArgument' | 'OutOfRange', message: string): never {
  throw Object.assign(new Error(message), { code })
}

const clone = <T>(value: T): T => structuredClone(value)

/** `"12.5s"`: a protobuf JSON Duration of `ms` milliseconds. */
const duration = (ms: number): string => `${(ms / 1000).toFixed(3).replace(/\.?0+$/, '')}s`

/** Milliseconds of a protobuf JSON Duration (`"1.5s"`). */
const durationMs = (text: string): number => Number(text.slice(0, -1)) * 1000

/** The built-in catalog `AddTrack` takes ids from. */
const CATALOG: Record<string, Track> = {
  'cat-1': {
    title: 'Rain on Glass',
    artist: 'Low Tide',
    length: '201s',
    genres: ['ambient'],
    source: 'SOURCE_CATALOG',
    audio: { tempoBpm: 72, musicalKey: 'D minor', sampleRateHz: 44100, explicit: false, fingerprint: '1001' },
  },
  'cat-2': {
    title: 'Neon Sprint',
    artist: 'Kilohertz',
    length: '184.5s',
    genres: ['synthwave'],
    source: 'SOURCE_CATALOG',
    audio: { tempoBpm: 128, musicalKey: 'A minor', sampleRateHz: 48000, explicit: false, fingerprint: '1002' },
  },
  'cat-3': {
    title: 'Slow Orbit',
    artist: 'Halcyon',
    length: '312s',
    genres: ['downtempo'],
    source: 'SOURCE_CATALOG',
    audio: { tempoBpm: 90, musicalKey: 'F major', sampleRateHz: 44100, explicit: false, fingerprint: '1003' },
  },
  'cat-4': {
    title: 'Static Hearts',
    artist: 'The Fuzz',
    length: '158s',
    genres: ['punk', 'rock'],
    source: 'SOURCE_CATALOG',
    audio: { tempoBpm: 170, musicalKey: 'E major', sampleRateHz: 44100, explicit: true, fingerprint: '1004' },
  },
  'cat-5': {
    title: 'Deep Work',
    artist: 'Monotone',
    length: '3600s',
    genres: ['drone'],
    source: 'SOURCE_CATALOG',
    audio: { tempoBpm: 60, musicalKey: 'C major', sampleRateHz: 96000, explicit: false, fingerprint: '1005' },
  },
}

/** The VibeService: one current vibe and its history. */
function vibeService(now: () => Date) {
  const initial = (): Vibe => ({
    mood: 'MOOD_CHILL',
    note: 'just started',
    intensity: 0.5,
    since: now().toISOString(),
    tags: {},
    changeCount: '0',
  })
  let current = initial()
  const history: { vibe: Vibe; lasted: string }[] = []
  const change = (next: Vibe): Vibe => {
    const previous = current
    const at = now()
    history.unshift({ vibe: clone(previous), lasted: duration(at.getTime() - Date.parse(previous.since ?? at.toISOString())) })
    current = { ...next, since: at.toISOString(), changeCount: String(BigInt(previous.changeCount ?? '0') + 1n) }
    return previous
  }
  return {
    SetVibe(req: { mood?: string; note?: string; intensity?: number }) {
      if (req.intensity !== undefined && (req.intensity < 0 || req.intensity > 1))
        fail('OutOfRange', `intensity ${req.intensity} is outside 0..1`)
      const previous = change({
        ...current,
        mood: req.mood ?? 'MOOD_UNSPECIFIED',
        intensity: req.intensity ?? 0,
        note: req.note ?? current.note,
      })
      return { previous, current }
    },
    GetVibe: () => current,
    UpdateVibe(req: { vibe?: Vibe; updateMask?: string }) {
      const paths = (req.updateMask ?? '').split(',').filter(Boolean)
      const next: Vibe = { ...current }
      for (const path of paths) {
        if (path !== 'mood' && path !== 'note' && path !== 'intensity' && path !== 'tags')
          fail('InvalidArgument', `cannot update "${path}": only mood, note, intensity and tags can change`)
        Object.assign(next, { [path]: req.vibe?.[path] })
      }
      change(next)
      return current
    },
    ResetVibe() {
      current = initial()
      history.length = 0
      return {}
    },
    VibeHistory(req: { limit?: number; mood?: string }) {
      const changes = history.filter((h) => req.mood === undefined || h.vibe.mood === req.mood)
      return { changes: req.limit ? changes.slice(0, req.limit) : changes }
    },
  }
}

/** The PlaylistService: playlists in creation order. */
function playlistService(now: () => Date) {
  const playlists = new Map<string, Playlist>()
  let nextId = 1
  let nextTrack = 1
  const find = (id = ''): Playlist => playlists.get(id) ?? fail('NotFound', `playlist "${id}" not found`)
  const reindex = (list: Playlist): Playlist => {
    list.explicitCounts = {}
    list.byFingerprint = {}
    for (const track of list.tracks) {
      const key = String(track.audio?.explicit ?? false)
      list.explicitCounts[key] = (list.explicitCounts[key] ?? 0) + 1
      if (track.audio?.fingerprint) list.byFingerprint[track.audio.fingerprint] = track
    }
    return list
  }
  return {
    CreatePlaylist(req: { name?: string; description?: string; moods?: string[] }) {
      if (!req.name?.trim()) fail('InvalidArgument', 'a playlist needs a name')
      const list: Playlist = {
        id: `pl-${nextId++}`,
        name: req.name,
        ...(req.description !== undefined && { description: req.description }),
        tracks: [],
        plays: {},
        positionLabels: { 0: 'opener' },
        explicitCounts: {},
        byFingerprint: {},
        moods: req.moods ?? [],
        createdAt: now().toISOString(),
      }
      playlists.set(list.id, list)
      return list
    },
    GetPlaylist: (req: { id?: string }) => find(req.id),
    ListPlaylists(req: { pageSize?: number; pageToken?: string }) {
      const all = [...playlists.values()]
      const size = req.pageSize || 10
      if (size < 0) fail('InvalidArgument', `page size ${size} is negative`)
      const start = req.pageToken ? Number(req.pageToken) : 0
      if (!Number.isInteger(start) || start < 0 || start > all.length)
        fail('InvalidArgument', `page token "${req.pageToken}" is not one this server gave out`)
      const end = start + size
      return { playlists: all.slice(start, end), nextPageToken: end < all.length ? String(end) : '' }
    },
    AddTrack(req: { playlistId?: string; catalogId?: string; track?: Track; position?: number }) {
      const list = find(req.playlistId)
      let track: Track
      if (req.catalogId !== undefined)
        track = clone(CATALOG[req.catalogId] ?? fail('NotFound', `catalog track "${req.catalogId}" not found: use "cat-1" to "cat-5"`))
      else if (req.track !== undefined) track = { ...clone(req.track), source: 'SOURCE_UPLOAD' }
      else fail('InvalidArgument', 'set catalogId or track')
      track.id = `t-${nextTrack++}`
      const at = Math.min(req.position ?? list.tracks.length, list.tracks.length)
      list.tracks.splice(at, 0, track)
      list.plays[track.id] = 0
      return reindex(list)
    },
    RemoveTrack(req: { playlistId?: string; trackId?: string }) {
      const list = find(req.playlistId)
      const at = list.tracks.findIndex((t) => t.id === req.trackId)
      if (at < 0) fail('NotFound', `track "${req.trackId}" not found in playlist "${list.id}"`)
      list.tracks.splice(at, 1)
      delete list.plays[req.trackId ?? '']
      return reindex(list)
    },
    RateTrack(req: { playlistId?: string; trackId?: string; rating?: Json }) {
      const list = find(req.playlistId)
      const track =
        list.tracks.find((t) => t.id === req.trackId) ?? fail('NotFound', `track "${req.trackId}" not found in playlist "${list.id}"`)
      const stars = req.rating?.stars
      if (typeof stars === 'number' && (stars < 1 || stars > 5)) fail('OutOfRange', `stars must be 1 to 5, not ${stars}`)
      track.rating = { ...track.rating, ...req.rating }
      list.plays[track.id ?? ''] = (list.plays[track.id ?? ''] ?? 0) + 1
      return track
    },
  }
}

/** Ids and times for every comment of a thread, recursively. */
function stamp(comment: Comment, newId: () => string, at: string): Comment {
  return { ...comment, id: newId(), at, replies: (comment.replies ?? []).map((reply) => stamp(reply, newId, at)) }
}

/** The comment with `id` anywhere in `thread`, or undefined. */
function findComment(thread: Comment[], id: string): Comment | undefined {
  for (const comment of thread) {
    if (comment.id === id) return comment
    const found = findComment(comment.replies ?? [], id)
    if (found) return found
  }
  return undefined
}

/** The JournalService: entries with comment threads. */
function journalService(now: () => Date) {
  const entries = new Map<string, Entry>()
  let nextEntry = 1
  let nextComment = 1
  const find = (id = ''): Entry => entries.get(id) ?? fail('NotFound', `entry "${id}" not found`)
  return {
    WriteEntry(req: Json & { text?: string }) {
      if (!req.text?.trim()) fail('InvalidArgument', 'an entry needs some text')
      const entry: Entry = { ...req, id: `e-${nextEntry++}`, createdAt: now().toISOString(), text: req.text, comments: [] }
      entries.set(entry.id, entry)
      return entry
    },
    GetEntry: (req: { id?: string }) => find(req.id),
    AddComment(req: { entryId?: string; parentId?: string; comment?: Comment }) {
      const entry = find(req.entryId)
      const comment = stamp(req.comment ?? {}, () => `c-${nextComment++}`, now().toISOString())
      if (req.parentId === undefined) entry.comments.push(comment)
      else {
        const parent =
          findComment(entry.comments, req.parentId) ?? fail('NotFound', `comment "${req.parentId}" not found in entry "${entry.id}"`)
        ;(parent.replies ??= []).push(comment)
      }
      return entry
    },
    SearchEntries(req: { query?: string; moods?: string[]; within?: string }) {
      const words = (req.query ?? '').toLowerCase().split(/\s+/).filter(Boolean)
      const after = req.within ? now().getTime() - durationMs(req.within) : -Infinity
      const found = [...entries.values()]
        .reverse()
        .filter(
          (e) =>
            words.every((w) => e.text.toLowerCase().includes(w)) &&
            (!req.moods?.length || req.moods.includes(e.mood ?? 'MOOD_UNSPECIFIED')) &&
            Date.parse(e.createdAt) >= after,
        )
      const moodCounts: Record<string, string> = {}
      for (const e of found) {
        const mood = e.mood ?? 'MOOD_UNSPECIFIED'
        moodCounts[mood] = String(Number(moodCounts[mood] ?? 0) + 1)
      }
      return { entries: found, moodCounts }
    },
    DeleteEntry(req: { id?: string }) {
      find(req.id)
      entries.delete(req.id ?? '')
      return {}
    },
  }
}

/** The playground's backend: one in-memory implementation per service of `vibe.proto`. */
export function createBackend(options: BackendOptions = {}) {
  const now = options.now ?? (() => new Date())
  return {
    VibeService: vibeService(now),
    PlaylistService: playlistService(now),
    JournalService: journalService(now),
  }
}
