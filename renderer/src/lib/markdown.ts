/**
 * A registry item's markdown documentation, made safe to show inside the app: rendered with
 * `marked`, then sanitized with DOMPurify into a fragment the page inserts as is (never parsed as
 * HTML again). Whoever published the item wrote it, so it is untrusted:
 * - no script, style, form, frame or event handler survives (DOMPurify, with an allowlist of tags);
 * - nothing remote loads: an image shows only when its bytes are inline (`data:image/…`); any other
 *   becomes "[image: alt]";
 * - no link leads anywhere: the app has no place to navigate to (the Electron shell blocks it), so a
 *   link is its text followed by its address, to read or copy;
 * - headings start at level 3, under the page's own h1 and the section's h2.
 */
import DOMPurify from 'dompurify';
import { Marked, type Tokens } from 'marked';

const INLINE_IMAGE = /^data:image\/(png|gif|jpeg|webp);base64,[a-z0-9+/=\s]+$/i;

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** Raw HTML in the source is kept for the sanitizer to judge; links and images in it are handled after. */
const marked = new Marked({
  gfm: true,
  async: false,
  renderer: {
    heading({ tokens, depth }: Tokens.Heading): string {
      const level = Math.min(6, depth + 2);
      return `<h${level}>${this.parser.parseInline(tokens)}</h${level}>\n`;
    },
    link({ href, tokens }: Tokens.Link): string {
      const text = this.parser.parseInline(tokens);
      const plain = tokens.length === 1 && tokens[0]?.type === 'text' && tokens[0].raw === href;
      const address = `<span class="md-url">${escapeHtml(href)}</span>`;
      return plain ? address : `<span class="md-link">${text}</span> <span class="md-url-wrap">(${address})</span>`;
    },
    image({ href, text }: Tokens.Image): string {
      if (INLINE_IMAGE.test(href)) return `<img src="${escapeHtml(href)}" alt="${escapeHtml(text)}">`;
      return `<span class="md-image">[image${text ? `: ${escapeHtml(text)}` : ''}]</span>`;
    },
    checkbox({ checked }: Tokens.Checkbox): string {
      return checked ? '☑ ' : '☐ ';
    },
  },
});

/** Markdown → HTML, links and images already made inert (not yet sanitized: `renderMarkdown` does that). */
export function markdownToHtml(markdown: string): string {
  return marked.parse(markdown, { async: false });
}

const ALLOWED_TAGS = [
  'p', 'br', 'hr', 'h3', 'h4', 'h5', 'h6', 'strong', 'b', 'em', 'i', 'del', 's', 'code', 'pre', 'kbd', 'sup', 'sub',
  'blockquote', 'ul', 'ol', 'li', 'dl', 'dt', 'dd', 'table', 'thead', 'tbody', 'tr', 'th', 'td', 'span', 'img', 'details', 'summary',
];
const ALLOWED_ATTR = ['src', 'alt', 'title', 'align', 'start', 'colspan', 'rowspan', 'class'];
const ALLOWED_CLASSES = new Set(['md-link', 'md-url', 'md-url-wrap', 'md-image']);

/**
 * Markdown → a sanitized fragment to insert (in a browser: DOMPurify needs a DOM). Raw HTML headings
 * (h1, h2) lose their tag but keep their text; raw links keep their text; classes are only ours.
 */
export function renderMarkdown(markdown: string): DocumentFragment {
  const fragment = DOMPurify.sanitize(markdownToHtml(markdown), {
    ALLOWED_TAGS,
    ALLOWED_ATTR,
    ALLOW_DATA_ATTR: false,
    ALLOW_ARIA_ATTR: false,
    // Only inline images: any other address is dropped (and the image with it, below).
    ALLOWED_URI_REGEXP: INLINE_IMAGE,
    RETURN_DOM_FRAGMENT: true,
  });
  for (const img of fragment.querySelectorAll('img')) {
    const src = img.getAttribute('src') ?? '';
    if (!INLINE_IMAGE.test(src)) {
      const alt = img.getAttribute('alt') ?? '';
      const span = img.ownerDocument.createElement('span');
      span.className = 'md-image';
      span.textContent = `[image${alt ? `: ${alt}` : ''}]`;
      img.replaceWith(span);
    }
  }
  for (const element of fragment.querySelectorAll('[class]')) {
    const kept = [...element.classList].filter((c) => ALLOWED_CLASSES.has(c));
    if (kept.length === 0) element.removeAttribute('class');
    else element.setAttribute('class', kept.join(' '));
  }
  return fragment;
}
