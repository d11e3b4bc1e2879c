// Images: per (run, tag) the newest image, with a slider over the steps the
// server kept (API: up to 10 per tag, newest kept).
//
// Test hooks: .image-card[data-image-run][data-image-tag][data-step] img.

import { getJson, imageUrl } from './api.js';
import { h, message } from './dom.js';
import { restorePosition } from './image_list.js';

export class ImagesView {
  constructor(app, root) {
    this.app = app;
    this.root = root;
    this.cards = new Map();
    this.list = h('div.image-grid');
    root.append(this.list);
    this.update(null);
  }

  update(changed) {
    const wanted = [];
    for (const r of this.app.selectedRuns()) for (const t of r.image_tags) wanted.push([r.name, t]);
    const keys = new Set(wanted.map(([r, t]) => `${r}\u0000${t}`));
    for (const [k, c] of this.cards) if (!keys.has(k)) { c.el.remove(); this.cards.delete(k); }
    const loads = [];
    wanted.forEach(([run, tag], i) => {
      const k = `${run}\u0000${tag}`;
      let c = this.cards.get(k);
      if (!c) { c = new ImageCard(this.app, run, tag); this.cards.set(k, c); }
      if (this.list.children[i] !== c.el) this.list.insertBefore(c.el, this.list.children[i] || null);
      if (!changed || changed.has(run)) loads.push(c.load());
    });
    this.root.querySelector(':scope > .empty')?.remove();
    if (!wanted.length) this.root.prepend(message('No images for the selected runs (ImageSummary writes them).'));
    Promise.allSettled(loads).then(() => this.app.setReady('images'));
  }

  destroy() {}
}

class ImageCard {
  constructor(app, run, tag) {
    this.app = app; this.run = run; this.tag = tag; this.images = []; this.seq = 0;
    this.img = h('img.summary-image', { alt: `${tag} (${run})` });
    this.slider = h('input', { type: 'range', min: 0, max: 0, step: 1, value: 0 });
    this.caption = h('div.caption');
    this.errorEl = h('div.error');
    this.slider.addEventListener('input', () => this.show(Number(this.slider.value)));
    this.el = h('section.image-card', { 'data-image-run': run, 'data-image-tag': tag },
      h('h3', {}, h('span.swatch', { style: `background:${app.color(run)}` }), `${tag} · ${run}`),
      this.errorEl, this.img, this.slider, this.caption);
  }

  async load() {
    const seq = ++this.seq;
    try {
      const d = await getJson('/api/images', { run: this.run, tag: this.tag });
      if (seq !== this.seq) return;
      // Keep showing the same image (by its index) unless at the newest: the
      // server's list shifts as new images push old ones out.
      const pos = restorePosition(this.images, Number(this.slider.value), d.images);
      this.images = d.images;
      this.errorEl.textContent = '';
      this.slider.max = String(Math.max(0, this.images.length - 1));
      this.slider.disabled = this.images.length < 2;
      this.slider.value = String(pos);
      await this.show(Number(this.slider.value));
    } catch (err) {
      if (seq === this.seq) this.errorEl.textContent = `${this.run} ${this.tag}: ${err.message}`;
    }
  }

  show(i) {
    const im = this.images[i];
    if (!im) { this.caption.textContent = 'no images'; return Promise.resolve(); }
    this.el.dataset.step = String(im.step);
    this.caption.textContent = `step ${im.step} · ${im.width}×${im.height} · ${new Date(im.wall_time * 1000).toLocaleString()}`;
    const scale = Math.max(1, Math.floor(160 / Math.max(im.width, im.height, 1)));
    this.img.style.width = `${im.width * scale}px`;
    this.img.style.height = `${im.height * scale}px`;
    return new Promise((resolve) => {
      this.img.onload = this.img.onerror = () => resolve();
      this.img.src = imageUrl(this.run, this.tag, im.index);
    });
  }
}
