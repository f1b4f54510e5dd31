import { describe, expect, it } from 'vitest';
import { markdownToHtml } from './markdown';

// renderMarkdown's DOMPurify pass needs a DOM; the E2E spec runs it in Chromium. These check what
// marked makes before it: links and images already inert, headings under the page's own.
describe('markdown for registry documentation', () => {
  it('renders the usual markdown, headings starting at level 3', () => {
    const html = markdownToHtml('# lidar-slam\n\nBuilds **maps**.\n\n## Configuration\n\n| a | b |\n|---|---|\n| `x` | y |\n\n- one\n- two\n');
    expect(html).toContain('<h3>lidar-slam</h3>');
    expect(html).toContain('<h4>Configuration</h4>');
    expect(html).toContain('<strong>maps</strong>');
    expect(html).toContain('<table>');
    expect(html).toContain('<code>x</code>');
    expect(html).toContain('<li>two</li>');
    expect(markdownToHtml('###### deep')).toContain('<h6>deep</h6>');
  });

  it('shows links as their text and address, leading nowhere', () => {
    const html = markdownToHtml('See [the source](https://github.com/acme/x "t") or <https://example.com/a?b=1&c=2>.');
    expect(html).not.toMatch(/<a[\s>]/);
    expect(html).toContain('<span class="md-link">the source</span> <span class="md-url-wrap">(<span class="md-url">https://github.com/acme/x</span>)</span>');
    expect(html).toContain('<span class="md-url">https://example.com/a?b=1&#38;c=2</span>');
    expect(markdownToHtml('[x](javascript:alert(1))')).not.toMatch(/<a[\s>]/);
  });

  it('loads no image from anywhere: only inline bytes show', () => {
    expect(markdownToHtml('![build status](https://ci.example.com/badge.svg)')).toContain('<span class="md-image">[image: build status]</span>');
    expect(markdownToHtml('![](/etc/passwd)')).toContain('<span class="md-image">[image]</span>');
    const inline = 'data:image/png;base64,iVBORw0KGgo=';
    expect(markdownToHtml(`![dot](${inline})`)).toContain(`<img src="${inline}" alt="dot">`);
  });

  it('escapes what it writes itself', () => {
    expect(markdownToHtml('![a" onerror="x](https://x/y.png)')).not.toContain('onerror="x"');
    expect(markdownToHtml('[t](https://x/"onmouseover="y)')).not.toContain('onmouseover="');
  });
});
