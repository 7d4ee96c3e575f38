// "a" or "an" before a word in an error message, as the word is said aloud: "an email", "an
// active journey", "an sms" (es-em-es), "an rcs", but "a voice", "a draft".

const VOWEL_SOUND = /^(?:[aeiou]|sms\b|rcs\b)/i

/** The word with its indefinite article: `a('update_contact')` → "an update_contact". */
export function a(word: string): string {
  return `${VOWEL_SOUND.test(word) ? 'an' : 'a'} ${word}`
}
